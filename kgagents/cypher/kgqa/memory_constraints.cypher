// Path memory: one (:PathExample) per (KG, learned question, relation path).
CREATE CONSTRAINT path_example_key IF NOT EXISTS FOR (x:PathExample) REQUIRE (x.kg, x.id) IS UNIQUE;
