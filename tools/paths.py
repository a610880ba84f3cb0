"""Where the host's code is, and the one place that puts it on ``sys.path``.

tools/ is grouped by who runs it, each group a folder with a README.md: maker/ (a
maker's commands), simulated/ (the simulated board and sim), lanes/ (the firmware in
other VMs), quality/ (bench, probes, robot, mutants), gen/ (what is derived: sounds,
the card, pictures, the names). Their modules import one another by plain name
(``import synth``, ``from harness import Sim``) whatever group holds them, because
importing this module puts on the path, once and in this order:

- the simulated board's stand-ins (simulated/simboard: ``alarm``, ``audiocore``,
  ``supervisor`` ...), ahead of Blinka's own modules;
- the board's lib/ (``qiklaxon``, ``state``), as on the board;
- tools/ itself (``dev``, this) and each group;
- last, the repository's root (``model``, ``hardware``): its code.py must not shadow the
  standard library's ``code`` module, so "" and "." go too.

Every command in a group starts with the two lines that find this module:

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)

and tests/conftest.py imports it. The folders the VM lanes stage (vmboard, cpboard,
simboard) are copied into each VM's own path (tools/lanes/vm.py, cpvm.py, the web page).
"""

import os
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
GROUPS = ("maker", "simulated", "lanes", "quality", "gen")
SIMBOARD = os.path.join(TOOLS, "simulated", "simboard")
VMBOARD = os.path.join(TOOLS, "lanes", "vmboard")
CPBOARD = os.path.join(TOOLS, "lanes", "cpboard")
FIRST = [SIMBOARD, os.path.join(ROOT, "lib"), TOOLS] + [os.path.join(TOOLS, g) for g in GROUPS]

sys.path[:] = FIRST + [p for p in sys.path if p not in FIRST and p not in ("", ".", ROOT)] + [ROOT]
