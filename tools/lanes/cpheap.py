"""What a collection on CircuitPython 10's VM kept, and why (host-only; issue 24).

``Drive.run(heap_map=True)`` (or ``"fault"``) makes the CircuitPython lane's runner
print the heap's block map (``micropython.mem_info(1)``) and copy out the C stack, the
heap and the VM's static data (through ``/proc/self/mem``, allocating nothing). This
reads that copy as the collector does: a word anywhere on the stack or in static data
that holds the address of a block's head keeps the block, and every word inside a kept
block that holds another head keeps that one too (CircuitPython's collector is
conservative: it does not know which words are pointers). So it can tell, for each
word on the C stack, what that word alone keeps (the blocks no other root reaches), and
name them: a module by its ``__name__``, a string by its text, a function by its
module. ``report()`` prints that, the free runs of the heap (the holes) and the
allocation that failed.

The copy is taken after the probe's or the fault's collection, from the frame that
reports it: words the collection scanned below that frame may since have been written
over, so what it names is a lower bound of what stale words kept.
"""

import collections
import re

# gc_dump_alloc_table's letters: a head's type; "=" a tail block, "." free
KINDS = {"T": "tuple", "L": "list", "D": "dict", "S": "str", "A": "array", "F": "float",
         "B": "function", "M": "module", "h": "other"}
BLOCK = 16  # bytes a block (CircuitPython 10, 32-bit)


class Heap:
    """The heap and the memory around it as ``drive``'s last diagnosis run saw them."""

    def __init__(self, drive):
        lines = drive.maps[0]
        head = [line for line in lines if "GC memory layout" in line]
        if not head:
            raise ValueError("no heap map: run with heap_map=True or 'fault'")
        self.start = int(head[0].split("from ")[1].rstrip(":"), 16)
        kinds = []
        for line in lines:
            if line[:1] == "0" and line[8:9] == ":":
                at = int(line[:8], 16) // BLOCK
                kinds += "." * (at - len(kinds))
                kinds += line[10:]
        total = int([x for x in lines if x.startswith("GC: total:")][0].split()[2].rstrip(","))
        kinds += "." * (total // BLOCK - len(kinds))
        self.kinds = "".join(kinds)
        self.memory = sorted(drive.memory.items())
        self.mark = drive.mark
        starts = sorted(drive.regions)
        self.region = {}  # a chunk's address: 0 the C stack, 1 the heap, 2 static data

        def region(a):
            lo = max(x for x in starts if x <= a)
            return min(drive.regions.index(lo), 2)

        for a, _ in self.memory:
            self.region[a] = region(a)
        self._qstr = None

    # ---------------------------------------------------------------- reading memory
    def read(self, addr, n):
        for lo, data in self.memory:
            if lo <= addr and addr + n <= lo + len(data):
                return data[addr - lo:addr - lo + n]
        return None

    def word(self, addr):
        b = self.read(addr, 4)
        return None if b is None else int.from_bytes(b, "little")

    def head_of(self, value):
        """The block whose head ``value`` points into (as the collector takes it), or None."""
        if value is None or not self.start <= value < self.start + BLOCK * len(self.kinds):
            return None
        b = (value - self.start) // BLOCK
        return b if self.kinds[b] not in "=." else None

    def size(self, b):
        n = 1
        while b + n < len(self.kinds) and self.kinds[b + n] == "=":
            n += 1
        return n

    def words_of(self, b):
        a = self.start + BLOCK * b
        data = self.read(a, BLOCK * self.size(b)) or b""
        return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data) - 3, 4)]

    # ---------------------------------------------------------------- roots
    def stack(self):
        """[(address, word)] of the C stack from the reporting frame (the mark) up."""
        for lo, data in self.memory:
            i = data.find(self.mark.to_bytes(4, "little")) if self.mark else -1
            if i >= 0 and self.region[lo] == 0:
                break
        else:
            return []
        top = max(a + len(d) for a, d in self.memory if self.region[a] == 0)
        first = lo + (i & ~3)
        out = []
        a = first
        while a < top:
            w = self.word(a)
            if w is None:
                break
            out.append((a, w))
            a += 4
        return out

    def statics(self):
        """[word] of the VM's static data (its .data and .bss): roots too."""
        out = []
        for lo, data in self.memory:
            if self.region[lo] == 2:
                out += [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data) - 3, 4)]
        return out

    def closure(self, roots):
        """The head blocks ``roots`` (heads) keep, as the collector marks them."""
        seen = set()
        todo = [r for r in roots if r is not None]
        while todo:
            b = todo.pop()
            if b in seen:
                continue
            seen.add(b)
            for w in self.words_of(b):
                h = self.head_of(w)
                if h is not None and h not in seen:
                    todo.append(h)
        return seen

    def bytes_of(self, blocks):
        return BLOCK * sum(self.size(b) for b in blocks)

    # ---------------------------------------------------------------- naming
    def qstrs(self):
        """{qstr number: text} of the dynamic qstr pools found in the heap."""
        if self._qstr is None:
            self._qstr = {}
            for b, k in enumerate(self.kinds):
                if k != "h":
                    continue
                w = self.words_of(b)
                if len(w) < 7:
                    continue
                prev, total_prev, alloc, n, hashes, lengths = w[:6]
                if not (0 < n <= alloc <= 4096 and total_prev < 65536 and
                        alloc in (10, 20, 40, 80, 160, 320, 640) and
                        self.read(lengths, n) is not None):
                    continue
                lens = self.read(lengths, n)
                for i in range(n):
                    p = w[6 + i] if 6 + i < len(w) else None
                    text = self.read(p, lens[i]) if p else None
                    if text is not None:
                        self._qstr[total_prev + i] = text.decode("utf-8", "replace")
        return self._qstr

    def qstr(self, obj):
        """The text of a qstr object (CircuitPython's ``(q << 3) | 2``), or None."""
        if obj is not None and obj & 7 == 2:
            return self.qstrs().get(obj >> 3, "q#%d" % (obj >> 3))
        return None

    def module_name(self, b):
        """A module block's ``__name__``: in its globals, the name (a qstr made at run
        time, so in the heap's pools) that a static qstr key (``__name__`` is one) holds;
        ``__file__``'s value is a path, so a name without a slash."""
        w = self.words_of(b)
        d = self.head_of(w[1]) if len(w) > 1 else None
        if d is None:
            return None
        dw = self.words_of(d)  # dict: base, map (flags | used << 3), alloc, table
        if len(dw) < 4:
            return None
        for i in range(min(dw[2], 256)):
            k, v = self.word(dw[3] + 8 * i), self.word(dw[3] + 8 * i + 4)
            name = self.qstr(v) if k is not None and k & 7 == 2 else None
            if name and re.match(r"[A-Za-z_][A-Za-z0-9_.]*$", name) and \
                    self.qstr(k).startswith("q#"):
                return name
        return None

    def text(self, b):
        """A str block's text (up to 60 characters), or None."""
        if b is None or self.kinds[b] != "S":
            return None
        w = self.words_of(b)
        n, p = w[2], w[3]
        data = self.read(p, min(n, 60)) if n < 65536 else None
        return None if data is None else data.decode("utf-8", "replace")

    def describe(self, b):
        k = self.kinds[b]
        if k == "S":
            return "str %r" % self.text(b)
        if k == "M":
            return "module %s" % self.module_name(b)
        if k == "B":
            m = self.head_of(self.words_of(b)[1])
            return "function of %s" % (self.module_name(m) if m is not None and
                                       self.kinds[m] == "M" else "?")
        return "%s of %d B" % (KINDS.get(k, k), self.bytes_of([b]))

    # ---------------------------------------------------------------- the report
    def free_runs(self):
        """[(block, blocks)] of the free runs, in heap order."""
        out = []
        b = 0
        while b < len(self.kinds):
            if self.kinds[b] == ".":
                n = 1
                while b + n < len(self.kinds) and self.kinds[b + n] == ".":
                    n += 1
                out.append((b, n))
                b += n
            else:
                b += 1
        return out

    def kept_by_stack(self, low=None):
        """[(stack address, word, head, bytes only it keeps, [the largest blocks' names])]
        for each stack word (from the mark up) that holds a head; ``low``: heads below
        that block (the stand-ins, made before code.py) are not the firmware's."""
        stack = self.stack()
        statics = [self.head_of(w) for w in self.statics()]
        words = [(a, w, self.head_of(w)) for a, w in stack]
        heads = [h for _, _, h in words if h is not None]
        everything = self.closure(statics + heads)
        out = []
        for i, (a, w, h) in enumerate(words):
            if h is None:
                continue
            rest = self.closure(statics + [x for j, (_, _, x) in enumerate(words)
                                           if x is not None and j != i and x != h])
            only = everything - rest
            if low is not None:
                only = {b for b in only if b >= low}
            if only:
                names = sorted(only, key=lambda b: -self.size(b))[:6]
                out.append((a, w, h, self.bytes_of(only), [self.describe(b) for b in names]))
        return out

    def report(self, failed=None, low=None):
        """Lines: the free runs, then what each stack word alone keeps."""
        runs = self.free_runs()
        free = sum(n for _, n in runs)
        big = max((n for _, n in runs), default=0)
        out = ["heap %d B, used %d B, free %d B in %d runs, the largest %d B%s" % (
            BLOCK * len(self.kinds), BLOCK * sum(1 for k in self.kinds if k != "."),
            BLOCK * free, len(runs), BLOCK * big,
            "; the allocation that failed: %d B" % failed if failed else "")]
        sizes = collections.Counter(min(n, 8) for _, n in runs)
        out.append("free runs by blocks: " + ", ".join(
            "%s%d: %d" % ("" if k < 8 else ">=", k, sizes[k]) for k in sorted(sizes)))
        for a, w, h, n, names in sorted(self.kept_by_stack(low), key=lambda r: -r[3]):
            out.append("stack +%d: %08x keeps %d B only it reaches: %s" % (
                a - self.stack()[0][0], w, n, "; ".join(names)))
        return out
