"""The register map by name and an AXI4-Lite master for the CSR port.

The map comes from the one Rust definition (``cngw_regmap::REGISTERS``)
through ``cngw_sim.regmap()``; nothing here repeats an offset or a field.
"""

from dataclasses import dataclass
from dataclasses import field as dc_field

import cngw_sim

from .triggers import Condition

CsrError = cngw_sim.CsrError


@dataclass(frozen=True)
class Field:
    name: str
    lsb: int
    width: int
    mask: int
    doc: str

    def extract(self, value):
        """This field's value inside a register value."""
        return (value & self.mask) >> self.lsb

    def insert(self, register_value, value):
        """``register_value`` with this field replaced by ``value``."""
        if value >> self.width:
            raise ValueError(f"{value:#x} does not fit field {self.name} ({self.width} bits)")
        return (register_value & ~self.mask & 0xFFFF_FFFF) | (value << self.lsb)


@dataclass(frozen=True)
class Register:
    name: str
    offset: int
    access: str
    writable: bool
    reset: int
    volatile: bool
    doc: str
    fields: dict = dc_field(default_factory=dict)

    def field(self, name):
        try:
            return self.fields[name.lower()]
        except KeyError:
            raise KeyError(f"register {self.name} has no field {name!r}") from None


class RegisterMap:
    """Every register by name (case-insensitive) and by offset."""

    def __init__(self):
        self.registers = []
        for r in cngw_sim.regmap():
            fields = {f["name"].lower(): Field(**f) for f in r["fields"]}
            self.registers.append(Register(**{**r, "fields": fields}))
        self._by_name = {r.name.upper(): r for r in self.registers}
        self._by_offset = {r.offset: r for r in self.registers}

    def __getitem__(self, name):
        try:
            return self._by_name[name.upper()]
        except KeyError:
            raise KeyError(f"no register named {name!r}") from None

    def __contains__(self, name):
        return name.upper() in self._by_name

    def __iter__(self):
        return iter(self.registers)

    def __len__(self):
        return len(self.registers)

    def by_offset(self, offset):
        return self._by_offset.get(offset)

    def offset(self, register):
        """Byte offset of a register given by name or offset."""
        return register if isinstance(register, int) else self[register].offset


#: The register map, loaded once.
REGMAP = RegisterMap()


class AxiLiteMaster:
    """CSR accesses over the gateway's AXI4-Lite slave, by register name or
    offset. Accesses queue in order and run while the streams keep moving."""

    def __init__(self, sim, regmap=REGMAP):
        self.sim = sim
        self.regmap = regmap
        self._done = cngw_sim.EVENTS["CSR_DONE"]

    async def _wait(self, access_id, what):
        box = {}

        def finished():
            if "value" not in box:
                value = self.sim.csr_result(access_id)  # raises CsrError on failure
                if value is None:
                    return False
                box["value"] = value
            return True

        await Condition(self.sim, finished, self._done, None, what)
        return box["value"]

    async def read(self, register):
        """Reads a register; raises CsrError (SLVERR, DECERR, timeout)."""
        offset = self.regmap.offset(register)
        return await self._wait(self.sim.csr_submit_read(offset), f"CSR read {register}")

    async def write(self, register, value):
        """Writes a register; raises CsrError (SLVERR on read-only, DECERR unmapped)."""
        offset = self.regmap.offset(register)
        await self._wait(self.sim.csr_submit_write(offset, value), f"CSR write {register}")

    async def read_field(self, register, field_name):
        reg = self.regmap[register]
        return reg.field(field_name).extract(await self.read(reg.offset))

    async def write_field(self, register, field_name, value):
        """Read-modify-write of one field."""
        reg = self.regmap[register]
        current = await self.read(reg.offset)
        await self.write(reg.offset, reg.field(field_name).insert(current, value))

    def read_sync(self, register):
        """Blocking read outside a scheduler (clocks the gateway until done)."""
        return self.sim.csr_read(self.regmap.offset(register))

    def write_sync(self, register, value):
        """Blocking write outside a scheduler."""
        self.sim.csr_write(self.regmap.offset(register), value)
