"""Simulated flash behind ``microcontroller.nvm``, per board, with power cuts (host-only).

Each port's nvm write is modelled as CircuitPython does it:

* ``rp2040``: 4096 bytes, one sector; a write erases the sector and programs
  it again, except that the erase is skipped when the bytes written are
  still erased (0xFF): then only they are programmed.
* ``nrf52840``: 8192 bytes, two 4096-byte pages; a write erases and
  reprograms every page it touches (the datasheet allows no second program
  without an erase).
* ``samd21``: 256 bytes, one row; a write erases and reprograms the row.

A write is a list of atomic operations (erase a unit; program a page: 256 bytes
on RP2040 and nRF52840, 64 on SAMD21).
``cut_after(n)`` lets ``n`` operations complete and then cuts the power
part-way through the next one: an interrupted erase leaves the unit with a
random mix of erased and old bytes, an interrupted program a prefix of the
chunk programmed. The cut raises ``PowerCut``; the flash keeps what it had.
"""

import random

# board: (nvm bytes, erase unit, erase skipped when still erased, program chunk)
BOARDS = {"rp2040": (4096, 4096, True, 256), "nrf52840": (8192, 4096, False, 256),
          "samd21": (256, 256, False, 64)}


class PowerCut(Exception):
    """The power went while writing."""


class FlashSim:
    def __init__(self, board="rp2040", seed=0):
        self.size, self.unit, self.skip_erase_when_erased, self.chunk = BOARDS[board]
        self.board = board
        self.mem = bytearray(b"\xff" * self.size)
        self.ops = 0  # atomic operations done, ever
        self.erases = [0] * (self.size // self.unit)
        self._budget = None
        self._rng = random.Random(seed)

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        return self.mem[i]

    def cut_after(self, n):
        """Allow ``n`` more operations, then cut the power during the next (None: never)."""
        self._budget = n

    def _op(self):
        if self._budget is not None:
            if self._budget == 0:
                self._budget = None
                return False
            self._budget -= 1
        self.ops += 1
        return True

    def plan(self, start, data):
        """The operations a write of ``data`` at ``start`` takes: [("erase", unit) | ("program", at, bytes)]."""
        end = start + len(data)
        ops = []
        for u in range(start // self.unit, (end - 1) // self.unit + 1):
            u0, u1 = u * self.unit, (u + 1) * self.unit
            lo, hi = max(start, u0), min(end, u1)
            if self.skip_erase_when_erased and all(b == 0xFF for b in self.mem[lo:hi]):
                new = data[lo - start:hi - start]
                ops += [("program", a, bytes(new[a - lo:a - lo + self.chunk]))
                        for a in range(lo, hi, self.chunk)]
                continue
            page = bytearray(self.mem[u0:u1])
            page[lo - u0:hi - u0] = data[lo - start:hi - start]
            ops.append(("erase", u))
            c = self.chunk
            ops += [("program", a, bytes(page[a - u0:a - u0 + c])) for a in range(u0, u1, c)
                    if page[a - u0:a - u0 + c] != b"\xff" * c]
        return ops

    def __setitem__(self, key, data):
        if isinstance(key, int):
            key, data = slice(key, key + 1), bytes((data,))
        start = key.start or 0
        data = bytes(data)
        if len(data) != (key.stop if key.stop is not None else self.size) - start:
            raise ValueError("nvm slice assignment must keep the length")
        for op in self.plan(start, data):
            whole = self._op()
            if op[0] == "erase":
                u0 = op[1] * self.unit
                if whole:
                    self.mem[u0:u0 + self.unit] = b"\xff" * self.unit
                    self.erases[op[1]] += 1
                else:
                    for i in range(u0, u0 + self.unit):
                        if self._rng.random() < 0.5:
                            self.mem[i] = 0xFF
                    raise PowerCut()
            else:
                at, chunk = op[1], op[2]
                n = len(chunk) if whole else self._rng.randrange(len(chunk))
                for i in range(n):
                    self.mem[at + i] &= chunk[i]  # programming only clears bits
                if not whole:
                    raise PowerCut()
