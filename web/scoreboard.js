// The page as the scoreboard of a real board: its serial console, live.
//
// Two ways in: Web Serial (Chrome, Edge: "Connect a board" reads the USB port itself), or
// `python3 tools/dev.py web --serial PORT` (any browser: the server reads the port with
// pyserial and sends each line here as it comes, server-sent events on serial/events).
// Each line goes to tools/maker/scoreboard.py in the page's MicroPython VM (web/page.py's
// board_feed): it follows the game with a mirror of the board's own referee, says which
// sound to start, and when to ask the board for its whole state: one byte on the console
// (POST serial/ask, or written to the port), which the board answers with a `state` line.
// Nothing else is ever sent to the board.

const ASK_AGAIN_MS = 1500; // no answer to an ask: ask again after this
const ASK_RETRIES = 3; // ... at most this many times with no line from the board to go on
const SAME_PRESS_MS = 30; // lines this close are one press's: one sound (the board's)
const KEEP = 2000; // of the lines kept for the tests and the benchmark, the last this many
const LOG_LINES = 200;

// The event log's list (the board's page and the scoreboard): each [entry i from power-on,
// its time, its text, its class] new, or its text updated (its last line folded in); the
// list keeps the last LOG_LINES and scrolls to the newest. Returns the entry the list's
// first item now shows.
export function showLog(log, first, entries) {
  for (const [i, t, text, cls] of entries) {
    if (i < first) continue; // long gone from the list
    let li = log.children[i - first];
    if (!li) {
      li = document.createElement("li");
      li.value = i + 1;
      log.appendChild(li);
    }
    li.textContent = text;
    li.className = cls;
    li.dataset.t = t;
  }
  while (log.children.length > LOG_LINES) { // a long game: the recent ones
    log.removeChild(log.firstChild);
    first++;
  }
  if (entries.length) log.scrollTop = log.scrollHeight;
  return first;
}

// Is the page on the computer that serves it? Only then are the server's read times (its
// clock) and the page's (this computer's) one clock: a tablet's or a TV's differs by
// anything, and a latency from the two would be a wrong figure.
export function sameComputer(host = location.hostname) {
  return ["localhost", "127.0.0.1", "::1", "[::1]"].includes(host);
}

export function startBoard(ctx, source) {
  const { py, $ } = ctx;
  const hours = JSON.parse(py.board_start()).hours;
  ctx.setHours(hours);
  document.body.classList.add("board-mode");
  $("scoreboard").hidden = false;
  $("connect").hidden = true;
  $("connect-help").hidden = true;
  $("log").textContent = "";
  $("latency").textContent = "Console line\u2192scoreboard: not yet measured";
  const sb = {
    // read by the browser test and the benchmark
    source: source.name,
    lines: [], // {text, read: epoch ms it was read, shown: epoch ms the page showed it,
    //            sound: epoch ms its sound starts (audio clock + output buffer) or null}
    trace: [], // [line, the game as the scoreboard holds it after it (null: not known)]
    asks: [], // epoch ms of each ask sent
    heard: [], // [epoch ms, name] of each sound played (one a press, as the board's)
    connected: false,
    view: null,
  };
  window.qk.board = sb;
  let logFirst = 0;
  let drawn = -1e9; // the ring last drawn (performance.now())
  let dirty = true; // ... and a line came since
  let waiting = null; // the ask not answered yet (performance.now())
  let need = true; // the scoreboard wants the board's whole state (its last word on it)
  let retries = 0; // asks again on the clock, since the last state or connection
  let retry = null; // ... the next one's timer
  let current = null; // the sound playing: {name, start, end} (performance.now() ms)
  let after = null; // the sound waiting for the klaxon to end (the board's one voice)

  const epoch = (t) => performance.timeOrigin + t;

  function keep(list, item) {
    list.push(item);
    if (list.length > 2 * KEEP) list.splice(0, list.length - KEEP);
  }

  // The board's sounds, as it plays them: the klaxon at once; the buzz or blip of a press
  // made while it sounds comes after it (the buzz if any was refused); lines of one press
  // are one sound, the last line's (a mark's blip gives way to the chime of the reveal
  // it completes, as the board plays only the chime). Lines are one press's when they
  // were read from the port together (``read``, epoch ms), however late a busy page
  // gets to them.
  function sound(name, read) {
    const now = performance.now();
    if (name !== "klaxon" && current && current.name === "klaxon" && now < current.end) {
      if (after !== "denied") after = name;
      return null;
    }
    if (name !== "klaxon" && current && Math.abs(read - current.read) < SAME_PRESS_MS) {
      if (name === current.name) return null;
      sb.heard.pop(); // (cut at once: the press's sound is this one)
    }
    const started = ctx.play(name);
    keep(sb.heard, [epoch(now), name]);
    const length = ctx.duration(name);
    current = { name, read, start: now, end: now + length };
    if (name === "klaxon") {
      after = null;
      setTimeout(() => {
        if (after && current && current.name === "klaxon") {
          const next = after;
          after = null;
          current = null;
          sound(next, epoch(performance.now()));
        }
      }, length);
    }
    return started;
  }

  function ask() {
    const now = performance.now();
    if (waiting !== null && now - waiting < ASK_AGAIN_MS) return;
    if (!sb.connected) return;
    waiting = now;
    keep(sb.asks, epoch(now));
    source.ask();
    // An ask the board did not answer (its byte lost in a reset, say) on a quiet table
    // (no line to ask again on): ask again on the clock, a few times.
    clearTimeout(retry);
    retry = setTimeout(() => {
      retry = null;
      if (need && waiting !== null && sb.connected && retries < ASK_RETRIES) {
        retries++;
        ask();
      }
    }, ASK_AGAIN_MS + 50);
  }

  function line(text, read) {
    const out = JSON.parse(py.board_feed(text, Math.round(performance.now())));
    need = out.need;
    if (out.event === "state") {
      waiting = null;
      retries = 0;
    }
    const started = out.sound ? sound(out.sound, read ?? epoch(performance.now())) : null;
    show(out.view);
    logged(out.log);
    const shown = epoch(performance.now());
    const rec = { text, read: read ?? shown, shown, sound: started === null ? null : epoch(started) };
    keep(sb.lines, rec);
    keep(sb.trace, [text, out.table]);
    dirty = true;
    requestAnimationFrame(() => { rec.frame = epoch(performance.now()); });
    if (out.need) ask();
    latency();
  }

  function link(connected, why) {
    const was = sb.connected;
    sb.connected = connected;
    $("sb-link").textContent = why;
    $("sb-link").className = connected ? "ok" : "out";
    if (connected && !was) { // (again): the game may have moved on meanwhile
      waiting = null;
      need = true;
      retries = 0;
      show(JSON.parse(py.board_rejoin("connected")));
      ask();
    }
    if (!connected) show(sb.view, true);
    if (!sb.view) { // (nothing from the board yet: the heading says what the page waits for)
      ctx.status(connected ? "Connected: waiting for the board's game" : "Not connected: " + why);
    }
  }

  function latency() {
    if (source.name === "server" && !sameComputer()) { // (another computer's clock)
      $("latency").textContent = "Console line\u2192scoreboard: measured only on the " +
        "computer the board is plugged into (this screen's clock is not the server's)";
      return;
    }
    const xs = sb.lines.slice(-200).map((r) => Math.max(r.shown, r.sound || 0) - r.read)
      .sort((a, b) => a - b);
    if (!xs.length) return;
    const m = xs[Math.floor((xs.length - 1) / 2)];
    $("latency").textContent = `Console line\u2192scoreboard and sound: ${m.toFixed(1)} ms ` +
      `(median of the last ${xs.length} lines, from when the ${source.name === "web serial" ?
        "page" : "server"} read each)`;
  }

  // ------------------------------------------------------------ what it shows
  function show(v, stale) {
    if (!v) return;
    sb.view = v;
    document.body.classList.toggle("board-stale", !!stale || !v.synced);
    let status = v.status;
    if (v.asleep) status = "Asleep: the board saves its batteries; the Klaxon wakes it";
    if (v.fault) status = "Fault: " + v.fault + " (the Klaxon still sounds)";
    if (!sb.connected) status = "Not connected: " + $("sb-link").textContent;
    ctx.status(status);
    seats(v);
    const roll = $("sb-roll");
    roll.hidden = !(v.roll && v.synced);
    if (v.roll) {
      roll.querySelectorAll(".die").forEach((el, i) => { el.textContent = v.roll[i]; });
      $("sb-question").textContent = `Question ${v.question}`;
      roll.setAttribute("aria-label", `Last roll: red ${v.roll[0]}, white ${v.roll[1]}, ` +
        `blue ${v.roll[2]}: question ${v.question}`);
    }
    put("sb-entry", v.entry ? "Being entered: " + v.entry : "");
    put("sb-refused", v.refused ? "Refused: " + v.refused : "");
    const w = v.winners || [];
    put("sb-winners", !w.length ? "" : w.length === 1 ? `Seat ${w[0]} wins` :
      `Seats ${w.slice(0, -1).join(", ")} and ${w.at(-1)} share the win`);
  }

  function put(id, text) {
    const el = $(id);
    el.hidden = !text;
    if (el.textContent !== text) el.textContent = text;
  }

  function seats(v) {
    const list = $("sb-seats");
    const n = v.mode === "referee" ? v.players || 0 : 0;
    while (list.children.length > n) list.removeChild(list.lastChild);
    while (list.children.length < n) {
      const li = document.createElement("li");
      li.innerHTML = '<span class="who"></span><span class="square"></span><span class="tags"></span>';
      list.appendChild(li);
    }
    for (let s = 0; s < n; s++) {
      const li = list.children[s];
      const tags = [];
      const did = v.did ? v.did[s] : 0;
      if (s === v.qm) tags.push(["qm", "QM"]);
      if (s === v.answering) tags.push(["turn", "to answer"]);
      if (v.phase !== "idle" && s !== v.qm && did === 1) tags.push(["answered", "answered"]);
      if (v.phase !== "idle" && s !== v.qm && did === 2) tags.push(["passed", "passed"]);
      if (s === v.challenger) tags.push(["challenger", "challenger"]);
      if (s === v.challenged) tags.push(["challenged", "challenged"]);
      if (v.right && v.right.includes(s)) tags.push(["right", "right"]);
      if (v.wrong && v.wrong.includes(s)) tags.push(["wrong", "wrong"]);
      if (v.penalties && v.penalties[s]) tags.push(["penalty", `penalty \u2212${v.penalties[s]}`]);
      if (v.winners && v.winners.includes(s)) tags.push(["winner", "winner"]);
      li.querySelector(".who").textContent = `Seat ${s}`;
      li.querySelector(".square").textContent = v.positions[s];
      li.querySelector(".tags").innerHTML = tags.map(([k, t]) =>
        `<span class="tag ${k}">${t}</span>`).join("");
      li.className = tags.map(([k]) => k).join(" ");
      li.setAttribute("aria-label", `Seat ${s}: square ${v.positions[s]}` +
        (tags.length ? ", " + tags.map(([, t]) => t).join(", ") : ""));
    }
  }

  function logged(entries) {
    logFirst = showLog($("log"), logFirst, entries.map(([i, t, name, text]) =>
      [i, t, text, name === "klaxon" ? "alarm" : name === "console" ? "raw" : ""]));
  }

  // The ring, drawn by the board's own code: after a line, and every 64 ms for its blinks
  // (the board steps them every 128 ms), not at every frame (the VM has lines to read).
  function ring() {
    const now = performance.now();
    if (dirty || now - drawn >= 64) {
      ctx.drawRing(JSON.parse(py.board_ring(Math.round(now))));
      drawn = now;
      dirty = false;
    }
    requestAnimationFrame(ring);
  }

  source.start({ line, link });
  requestAnimationFrame(ring);
  return sb;
}

// ---------------------------------------------------------------- the sources
// Lines split from bytes as they come (a line may arrive in pieces).
function splitter(onLine) {
  let buf = "";
  return (text, read) => {
    buf += text;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      onLine(buf.slice(0, i), read);
      buf = buf.slice(i + 1);
    }
    if (buf.length > 4096) { // no newline in all that: noise (a wrong baud rate)
      onLine(buf, read);
      buf = "";
    }
  };
}

// `tools/dev.py web --serial PORT`: the server reads the port; its lines come as
// server-sent events, each with the time the server read it.
export function serverSource() {
  let sim = false; // the simulated board's (tools/dev.py sim --scoreboard), not a port's
  return {
    name: "server",
    start(to) {
      const events = new EventSource("serial/events");
      events.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.kind === "line") to.line(m.text, m.t);
        else if (m.kind === "dropped") { // too slow to read: the server let it go
          to.link(false, `The page fell behind: ${m.why}`);
        }
        else if (m.kind === "status") {
          sim = m.port === "sim";
          to.link(m.connected, m.connected ? `Connected: ${m.name || "the board on " + m.port}` +
            " (read by the server)" : `The board is not connected: ${m.why}`);
        }
      };
      events.onerror = () => {
        if (events.readyState !== EventSource.OPEN) {
          to.link(false, sim ? "The simulated board stopped (tools/dev.py sim --scoreboard): " +
            "start it again and the page follows it" : "The page lost the server " +
            "(tools/dev.py web --serial stopped?): it tries again");
        }
      };
    },
    ask() {
      fetch("serial/ask", { method: "POST" }).catch(() => {});
    },
  };
}

// Web Serial: the page reads the USB port itself (Chrome, Edge). A port pulled out ends
// the read; plugged back in, the browser says so ("connect") and the page opens it again:
// Chromium makes a new SerialPort object for a device plugged back in (WICG/serial#181),
// so a port of the same USB ids is taken as the board come back.
export function webSerialSource(port) {
  const ids = (p) => {
    const i = p && p.getInfo ? p.getInfo() : {};
    return i.usbVendorId === undefined ? null : `${i.usbVendorId}:${i.usbProductId}`;
  };
  const board = ids(port);
  let writer = null;
  let to = null;
  let reading = false;
  async function open() {
    if (reading) return;
    reading = true;
    try {
      await port.open({ baudRate: 115200 });
    } catch (e) {
      reading = false;
      if (String(e).includes("already open")) return;
      to.link(false, `The board's port did not open (${e.message || e}): plug it in again`);
      return;
    }
    writer = port.writable ? port.writable.getWriter() : null;
    to.link(true, "Connected: the board over USB (Web Serial, read by this page)");
    const split = splitter((text, read) => to.line(text, read));
    const decoder = new TextDecoder();
    const reader = port.readable.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        split(decoder.decode(value, { stream: true }), performance.timeOrigin + performance.now());
      }
    } catch (e) {
      // the cable pulled out: "The device has been lost"
    } finally {
      try { reader.releaseLock(); } catch (e) { /* gone */ }
      try { if (writer) writer.releaseLock(); } catch (e) { /* gone */ }
      writer = null;
      try { await port.close(); } catch (e) { /* gone */ }
      reading = false;
      to.link(false, "The board's cable is out: plug it back in (the page reconnects)");
    }
  }
  return {
    name: "web serial",
    start(t) {
      to = t;
      navigator.serial.addEventListener("connect", (e) => {
        const p = e.port || e.target;
        if (p && p !== port && p !== navigator.serial && !reading && board !== null &&
            ids(p) === board) port = p; // (the board, plugged back in: a new object)
        if (p === port || p === navigator.serial) open();
      });
      open();
    },
    ask() {
      if (writer) writer.write(new Uint8Array([10])).catch(() => {});
    },
  };
}
