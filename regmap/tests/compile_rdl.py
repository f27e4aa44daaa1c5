"""Compile and elaborate a SystemRDL file with the reference compiler.

Usage: python compile_rdl.py FILE.rdl

Prints one JSON document: {"addrmap": NAME, "registers": [{"name", "offset",
"reset", "fields": [{"name", "lsb", "width", "reset", "sw", "hw"}]}]}. Exits
non-zero (with the compiler's messages on stderr) when the file does not compile.
"""

import json
import sys

from systemrdl import RDLCompiler, RDLCompileError
from systemrdl.node import RegNode


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    compiler = RDLCompiler()
    try:
        compiler.compile_file(sys.argv[1])
        root = compiler.elaborate()
    except RDLCompileError:
        return 1
    top = root.top
    registers = []
    for node in top.descendants(unroll=True):
        if not isinstance(node, RegNode):
            continue
        reset = 0
        fields = []
        for field in node.fields():
            field_reset = field.get_property("reset")
            if field_reset is not None:
                reset |= field_reset << field.lsb
            fields.append(
                {
                    "name": field.inst_name,
                    "lsb": field.lsb,
                    "width": field.width,
                    "reset": field_reset,
                    "sw": field.get_property("sw").name,
                    "hw": field.get_property("hw").name,
                    "singlepulse": bool(field.get_property("singlepulse")),
                }
            )
        registers.append(
            {
                "name": node.inst_name,
                "offset": node.absolute_address,
                "reset": reset,
                "fields": fields,
            }
        )
    json.dump({"addrmap": top.inst_name, "registers": registers}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
