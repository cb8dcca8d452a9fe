// One (:PathText) per (KG, path space, text key).
CREATE CONSTRAINT path_text_key IF NOT EXISTS FOR (p:PathText) REQUIRE (p.kg, p.space, p.key) IS UNIQUE;
