"""The saved game in the board's non-volatile memory (``microcontroller.nvm``), power-cut safe.

Pure Python over any bytearray-like ``nvm``. Each save is one record:

    0x51 'Q' | seq (2 bytes, big-endian) | length | payload | CRC-16/CCITT (2 bytes) | 0x00

A record whose CRC does not match (a write cut short) is ignored; the newest
valid record (serial-number order of ``seq``) is the saved game. The final
0x00 means a whole record never ends in erased-looking bytes, so the erased
tail of a log is exactly what follows its last non-0xFF byte. Two layouts,
chosen by how the port writes flash:

``LOG`` (RP2040: one 4 KB sector; CircuitPython skips the erase when the
bytes written are still erased, 0xFF): records are appended into erased
space, so a save programs ~30 bytes and erases nothing; a torn record is
skipped (the scan resynchronises on the next valid one) and appending goes
on after it. When the sector is full, a compaction rewrites it holding only
the newest record (one erase). A power cut while appending leaves the
previous record; one during a compaction's erase (~50 ms, once every ~130
saves) loses the saved game.

``PINGPONG`` (nRF52840: two 4 KB pages, every write erases its page;
SAMD21: 256 bytes): each save goes to the bank not holding the newest
record, so a power cut while erasing or programming one bank leaves the
other's record, at worst the state one save back. On the SAMD21 both banks
share one 256-byte row, so a cut during its erase can lose both.
"""

from micropython import const

LOG = const(0)
PINGPONG = const(1)

_MAGIC = const(0x51)
_HEAD = const(4)  # magic, seq (2), length
_TAIL = const(3)  # CRC (2), 0x00


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data``."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def record(seq, payload):
    """One record's bytes."""
    body = bytes((_MAGIC, (seq >> 8) & 0xFF, seq & 0xFF, len(payload))) + bytes(payload)
    c = crc16(body)
    return body + bytes((c >> 8, c & 0xFF, 0))


def _newer(a, b):
    """True if sequence number ``a`` is after ``b`` (16-bit serial arithmetic)."""
    return 0 < ((a - b) & 0xFFFF) < 0x8000


class Journal:
    """Load and save one payload (the game's ``to_bytes()``) in ``nvm``."""

    def __init__(self, nvm, layout=LOG):
        self._nvm = nvm
        self._layout = layout
        self._size = len(nvm)
        self.seq = -1  # seq of the newest valid record, -1 if none
        self.payload = None  # its payload
        self._at = 0  # where it starts
        self._end = 0  # LOG: where the next record goes (the erased tail)
        self.writes = 0  # saves that wrote (for wear accounting)
        self.erasing_writes = 0  # of them, those that need an erase (LOG compactions)
        self.bytes_written = 0
        self._scan()

    def _read(self, at):
        """(seq, payload, next offset) of a valid record at ``at``, else None."""
        nvm = self._nvm
        if at + _HEAD + _TAIL > self._size or nvm[at] != _MAGIC:
            return None
        n = nvm[at + 3]
        end = at + _HEAD + n + _TAIL
        if end > self._size:
            return None
        raw = bytes(nvm[at:end])
        if raw[-1] != 0 or crc16(raw[:-_TAIL]) != (raw[-3] << 8 | raw[-2]):
            return None
        return (raw[1] << 8 | raw[2]), raw[_HEAD:-_TAIL], end

    def _take(self, rec, at):
        if rec is not None and (self.seq < 0 or _newer(rec[0], self.seq)):
            self.seq, self.payload, self._at = rec[0], rec[1], at

    def _scan(self):
        if self._layout == PINGPONG:
            half = self._size // 2
            for at in (0, half):
                self._take(self._read(at), at)
            return
        nvm = self._nvm
        end = self._size
        while end > 0 and nvm[end - 1] == 0xFF:
            end -= 1
        self._end = end
        at = 0
        while at < end:
            rec = self._read(at) if nvm[at] == _MAGIC else None
            if rec is None:  # garbage: a torn record, or not ours; look further
                at += 1
                continue
            self._take(rec, at)
            at = rec[2]

    @property
    def found(self):
        """True when a valid saved record was found (or written)."""
        return self.seq >= 0

    def save(self, payload):
        """Store ``payload`` unless it is already the newest record; True if it wrote."""
        payload = bytes(payload)
        if self.payload == payload:
            return False
        seq = (self.seq + 1) & 0xFFFF
        rec = record(seq, payload)
        if len(rec) > (self._size // 2 if self._layout == PINGPONG else self._size):
            raise ValueError("saved game too large for this board's nvm")
        if self._layout == PINGPONG:
            at = self._size // 2 if self._at == 0 and self.seq >= 0 else 0
            self._nvm[at:at + len(rec)] = rec
        elif self._end + len(rec) <= self._size:
            at = self._end
            self._nvm[at:at + len(rec)] = rec
            self._end = at + len(rec)
        else:  # compaction: the sector anew, holding only this record
            at = 0
            self._nvm[0:self._size] = rec + b"\xff" * (self._size - len(rec))
            self._end = len(rec)
            self.erasing_writes += 1
        self.seq, self.payload, self._at = seq, payload, at
        self.writes += 1
        self.bytes_written += len(rec)
        return True
