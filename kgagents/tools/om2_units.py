"""Allowed units for OM-2 quantity classes (Ontology of units of Measure 2.0).

Why a table here: OM-2 models a quantity as ``quantity --hasValue--> measure {hasNumericalValue, hasUnit}``,
and T-Boxes such as OntoSyn only *reference* ``om:Temperature`` or ``om:Duration`` as ranges; the unit
axioms live in OM-2 itself, which is not loaded offline. This is the subset of OM-2's units for the
quantity kinds chemistry and materials T-Boxes use, each with the spellings a text writes ("°C",
"degree celsius"). A quantity class not listed gets no value+unit tool and is treated as a plain class.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from kgagents.loaders.rdf_terms import local_name

OM2 = "http://www.ontology-of-units-of-measure.org/resource/om-2/"
HAS_VALUE = OM2 + "hasValue"
HAS_NUMERICAL_VALUE = OM2 + "hasNumericalValue"
HAS_UNIT = OM2 + "hasUnit"
MEASURE = OM2 + "Measure"
UNIT = OM2 + "Unit"


@dataclass(frozen=True)
class Unit:
    """An OM-2 unit: its IRI and the spellings that name it (its local name is always one)."""

    iri: str
    spellings: tuple[str, ...]

    @property
    def name(self) -> str:
        return local_name(self.iri)


def _units(*specs: tuple[str, str]) -> tuple[Unit, ...]:
    """``("degreeCelsius", "°C|degC|degree celsius")`` → Unit; the local name is added as a spelling."""
    return tuple(Unit(OM2 + name, (name, *spellings.split("|"))) for name, spellings in specs)


_LENGTH = _units(("metre", "m|meter"), ("centimetre", "cm|centimeter"), ("millimetre", "mm|millimeter"),
                 ("micrometre", "µm|um|micron|micrometer"), ("nanometre", "nm|nanometer"),
                 ("angstrom", "Å|A|ångström"))
_UNITS: dict[str, tuple[Unit, ...]] = {
    "Temperature": _units(("degreeCelsius", "°C|℃|degC|degree celsius|degrees celsius|celsius|C"),
                          ("kelvin", "K"), ("degreeFahrenheit", "°F|degF|fahrenheit|F")),
    "Duration": _units(("second-Time", "s|sec|second|seconds"), ("minute-Time", "min|minute|minutes"),
                       ("hour", "h|hr|hrs|hours"), ("day", "d|days"), ("week", "wk|weeks")),
    "Pressure": _units(("pascal", "Pa"), ("kilopascal", "kPa"), ("megapascal", "MPa"), ("bar", "bar"),
                       ("millibar", "mbar"), ("standardAtmosphere", "atm|atmosphere"),
                       ("millimetreOfMercury", "mmHg|torr|Torr")),
    "Volume": _units(("litre", "L|l|liter"), ("millilitre", "mL|ml|milliliter"),
                     ("microlitre", "µL|uL|µl|ul|microliter"), ("cubicMetre", "m3|m³"),
                     ("cubicCentimetre", "cm3|cm³|cc")),
    "Mass": _units(("gram", "g"), ("milligram", "mg"), ("kilogram", "kg"), ("microgram", "µg|ug")),
    "AmountOfSubstance": _units(("mole", "mol"), ("millimole", "mmol"), ("micromole", "µmol|umol")),
    "AmountOfSubstanceFraction": _units(("percent", "%|per cent"), ("one", "1|fraction")),
    "MassFraction": _units(("percent", "%|wt%|per cent"), ("one", "1|fraction")),
    "AmountOfSubstanceConcentration": _units(("molePerLitre", "mol/L|M|molar"),
                                             ("millimolePerLitre", "mmol/L|mM|millimolar")),
    "TemperatureRate": _units(("degreeCelsiusPerHour", "°C/h|°C per hour|degree celsius per hour"),
                              ("degreeCelsiusPerMinute-Time", "°C/min|°C per minute|degree celsius per minute"),
                              ("kelvinPerHour", "K/h|kelvin per hour"),
                              ("kelvinPerMinute-Time", "K/min|kelvin per minute"),
                              ("kelvinPerSecond-Time", "K/s|kelvin per second")),
    "Frequency": _units(("hertz", "Hz"), ("megahertz", "MHz")),
    **{kind: _LENGTH for kind in ("Length", "Diameter", "Radius", "Width", "Height", "Depth", "Thickness",
                                  "Distance")},
}


def units_for(quantity_class: str) -> tuple[Unit, ...]:
    """The allowed units of an OM-2 quantity class IRI (empty for anything else)."""
    if not quantity_class.startswith(OM2):
        return ()
    return _UNITS.get(local_name(quantity_class), ())


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().lower()


def resolve_unit(quantity_class: str, text: str) -> Unit | None:
    """The unit ``text`` names among those allowed for the quantity (exact spelling first, then caseless)."""
    allowed = units_for(quantity_class)
    wanted = text.strip()
    for unit in allowed:  # case matters for symbols: "mL" vs "ML", "K" vs "k"
        if wanted in unit.spellings or wanted == unit.iri:
            return unit
    caseless = [u for u in allowed if _key(wanted) in {_key(s) for s in u.spellings}]
    return caseless[0] if len(caseless) == 1 else None
