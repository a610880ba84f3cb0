// The QI Klaxon in a browser: the board's own firmware on MicroPython's WebAssembly port.
//
// This file is the page's hardware: it loads the device files (web/device/, laid out by
// tools/maker/web.py) into the VM's file system, runs web/page.py there, moves its clock to
// real time, sets its pins from the on-screen buttons and keys, sounds what the device
// plays through Web Audio, draws its ring, and keeps its flash in localStorage.
// Or it is the scoreboard of a real board plugged into this computer (web/scoreboard.js:
// "Connect a board", or `tools/dev.py web --serial PORT`): then its own board does not run.
import { loadMicroPython } from "./node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs";
import { serverSource, showLog, startBoard, webSerialSource } from "./scoreboard.js";

const NVM_KEY = "qiklaxon.nvm"; // the saved game: the board's flash, as hex
const TICK_MS = 4; // the loop's timer
const LEAD_MS = 8; // a press runs the loop this far ahead at once (QK_GLITCH_MS is 5 at most)
const SOUNDS = ["klaxon", "denied", "blip", "done", "undone"]; // tools/gen/synth.py NAMES
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);

const qk = {
  // read by the browser test and the benchmark
  ready: false,
  readyMs: null, // page load (navigation start) to ready
  latencies: [], // Klaxon press -> sound start, ms, one per Klaxon press that sounded (A and B
  // act when let go: they are not timed)
  sounds: [], // [t_ms on the device's clock, name]
  stops: [], // t_ms of each stop the device made
  error: null,
};
window.qk = qk;

let mp = null;
let page = null;
let t0 = 0; // performance.now() at power-on
let words = null;
let lastFrame = null;
let hours = null; // each pixel's clock hour on the board (tools/simulated/events.py RING_POSITIONS)
let note = null; // what the start said (resumed, a new game...), shown until the first press
let logFirst = 0; // the log entry the list's first item shows
const holders = { klaxon: new Set(), a: new Set(), b: new Set() }; // the inputs holding each control
const TAP_MS = 80; // a button pressed by a screen reader: a tap this long
const KEEP = 1000; // of the measures below, the last this many (a long evening)
let pressAt = null; // the Klaxon press not yet heard: its event time
const audio = { ctx: null, gain: null, buffers: {}, source: null, raw: {} };

function keep(list, item) {
  list.push(item);
  if (list.length > 2 * KEEP) list.splice(0, list.length - KEEP);
}

function status(text) {
  if ($("status").textContent !== text) $("status").textContent = text; // (announced once)
}

function fail(text, err) {
  qk.error = text + (err ? ": " + err : "");
  status(qk.error);
  console.error(text, err);
}

async function fetchBytes(path) {
  const r = await fetch(path);
  if (!r.ok) throw new Error(path + ": " + r.status);
  return new Uint8Array(await r.arrayBuffer());
}

function writeFile(path, data) {
  const parts = path.split("/").filter(Boolean);
  let dir = "";
  for (const part of parts.slice(0, -1)) {
    dir += "/" + part;
    try {
      mp.FS.mkdir(dir);
    } catch (e) {
      // it exists
    }
  }
  mp.FS.writeFile("/" + parts.join("/"), data);
}

// ---------------------------------------------------------------- sound
function audioContext() {
  if (!audio.ctx) {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    audio.ctx = new AC({ latencyHint: "interactive" });
    audio.gain = audio.ctx.createGain();
    audio.gain.connect(audio.ctx.destination);
    setVolume();
    for (const name of SOUNDS) {
      if (audio.raw[name]) {
        audio.ctx.decodeAudioData(audio.raw[name].slice().buffer).then(
          (b) => { audio.buffers[name] = b; },
          (e) => console.warn("cannot decode", name, e));
      }
    }
  }
  if (audio.ctx.state === "suspended") audio.ctx.resume();
  return audio.ctx;
}

const SOUND_KEY = "qi-klaxon-sound"; // the volume and Mute, kept as the board's switch is

function setVolume() {
  try {
    localStorage.setItem(SOUND_KEY, JSON.stringify({
      volume: Number($("volume").value), mute: $("mute").checked }));
  } catch (e) { /* (a browser that keeps nothing: this page's choice only) */ }
  if (audio.gain) {
    const v = $("mute").checked ? 0 : Number($("volume").value) / 10;
    audio.gain.gain.value = v * v; // loudness grows about with the square
    qk.gain = v * v; // (read by the tests)
  }
}

// The volume and Mute, on this page's own board and on a real board's scoreboard alike:
// as they were left (a reload, a TV waking from sleep), and the sound let out at the
// first click, touch or key anywhere on the page (a browser starts a page's audio only
// then); until it is, the page says so (a scoreboard that is only watched stays silent).
function wireSound() {
  try {
    // (only what setVolume writes: a whole number 0 to 10, and true or false; anything
    // else is not this page's and leaves the defaults, not a range's made-up 5 or Mute
    // from a word such as "false")
    const kept = JSON.parse(localStorage.getItem(SOUND_KEY) || "null");
    const v = kept && kept.volume;
    if (Number.isInteger(v) && v >= 0 && v <= 10) $("volume").value = v;
    if (kept && typeof kept.mute === "boolean") $("mute").checked = kept.mute;
  } catch (e) { /* (nothing kept, or not readable: the page's defaults) */ }
  $("volume").addEventListener("input", setVolume);
  $("mute").addEventListener("change", setVolume);
  const ctx = audioContext(); // (made now: suspended until a click where the browser asks one)
  const hint = () => { $("sound-off").hidden = !ctx || ctx.state === "running"; };
  if (ctx) {
    ctx.addEventListener("statechange", hint);
    for (const ev of ["pointerdown", "keydown"]) {
      document.addEventListener(ev, () => { if (ctx.state !== "running") ctx.resume(); },
        { capture: true });
    }
  }
  hint();
}

// Called by the device (page.py) when it starts a sound, at its own time ``ms`` (the
// loop may run a few ms ahead of real time after a press): start it then.
globalThis.qkSound = (name, ms) => {
  const at = Math.max(performance.now(), t0 + ms); // when the firmware starts it, real time
  keep(qk.sounds, [ms, name]);
  const ctx = audioContext();
  if (ctx && audio.buffers[name]) {
    silence(at); // one sound at a time, as the board's one voice
    const src = ctx.createBufferSource();
    src.buffer = audio.buffers[name];
    src.connect(audio.gain);
    src.start(audioTime(at));
    audio.source = src;
  }
  if (name === "klaxon" && pressAt !== null) {
    // to the sound leaving Web Audio: its start on the audio clock, then the audio
    // output's own buffer (baseLatency); the loudspeaker's path after that is the device's
    keep(qk.latencies, at - pressAt + (ctx ? (ctx.baseLatency || 0) * 1000 : 0));
    pressAt = null;
    showLatency();
  }
};

// A sound now (the scoreboard of a real board: its line has come): when it leaves Web
// Audio, in performance.now() time (its start plus the output's buffer); null: no sound
// (no audio here, or its WAV not decoded yet).
function playNow(name) {
  const ctx = audioContext();
  const now = performance.now();
  if (!ctx || !audio.buffers[name]) return null;
  silence(now);
  const src = ctx.createBufferSource();
  src.buffer = audio.buffers[name];
  src.connect(audio.gain);
  src.start();
  audio.source = src;
  keep(qk.sounds, [now, name]);
  return now + (ctx.baseLatency || 0) * 1000;
}

function soundMs(name) {
  const b = audio.buffers[name];
  return b ? b.duration * 1000 : name === "klaxon" ? 1300 : 150;  // ms (tests/test_docs.py)
}

// The audio clock's time for ``at`` (performance.now() time; now if it has passed).
function audioTime(at) {
  return audio.ctx.currentTime + Math.max(0, at - performance.now()) / 1000;
}

function silence(at) {
  if (audio.source) {
    try {
      audio.source.stop(audioTime(at));
    } catch (e) {
      // already over
    }
    audio.source = null;
  }
}

// Called by the device when it stops the sound, at its own time ``ms``.
function stopSound(ms) {
  keep(qk.stops, ms);
  silence(t0 + ms);
}

globalThis.qkStop = stopSound;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : null;
}

function showLatency() {
  const m = median(qk.latencies);
  const buffer = audio.ctx && audio.ctx.baseLatency ?
    ` (${(audio.ctx.baseLatency * 1000).toFixed(0)} ms of it the audio buffer)` : "";
  const n = qk.latencies.length;
  $("latency").textContent = `Klaxon press\u2192sound: ${qk.latencies.at(-1).toFixed(1)} ms` +
    `${buffer}; median ${m.toFixed(1)} ms of ${n} Klaxon press${n > 1 ? "es" : ""}.`;
}

// ---------------------------------------------------------------- the loop
function nowMs() {
  return performance.now() - t0;
}

function step() {
  page.step(nowMs() / 1000); // seconds: a whole JavaScript number reaches Python as a 32-bit int
}

function tick() {
  if (!page) return;
  try {
    step();
    if (document.hidden) frame(); // no animation frames when hidden: keep the flash anyway
  } catch (e) {
    fail("the firmware's VM stopped", e);
    return;
  }
  setTimeout(tick, lastFrame && lastFrame.asleep ? 100 : TICK_MS); // asleep: only the Klaxon wakes it
}

// The screen stays on while the device is awake (a tablet in the middle of the table),
// and may go off once it sleeps, as the board's lights do.
let wakeLock = null;
async function holdScreen(on) {
  try {
    if (on && !wakeLock && navigator.wakeLock && document.visibilityState === "visible") {
      wakeLock = await navigator.wakeLock.request("screen");
      wakeLock.addEventListener("release", () => { wakeLock = null; });
    } else if (!on && wakeLock) {
      await wakeLock.release();
      wakeLock = null;
    }
  } catch (e) {
    wakeLock = null; // not allowed here (no gesture yet, or an insecure origin): no matter
  }
}

// A control is down while any input holds it (a finger, the mouse, a key): its pin
// changes when the first takes it and when the last lets go, as one contact would.
function hold(control, source, pressed, when) {
  if (!page) return;
  const by = holders[control];
  if (pressed === by.has(source)) return;
  if (pressed) by.add(source); else by.delete(source);
  if (by.size === (pressed ? 1 : 0)) level(control, pressed, when);
}

function level(control, pressed, when) {
  audioContext(); // a press is the user gesture that lets a suspended context sound
  note = null; // the status line follows the game from the first press on
  holdScreen(true);
  $(control).classList.toggle("down", pressed);
  step(); // the pin changes now, at the device's time now
  if (control === "klaxon" && pressed) {
    pressAt = when;
    qk.handled = performance.now() - when; // the browser's own delay before the page sees it
  }
  page.level(control, pressed);
  // The device's next few milliseconds now, not a timer later (a timer waits 4 ms or
  // more, behind the browser's drawing): what it plays in them is scheduled on the
  // audio clock for the moment the firmware starts it (qkSound).
  page.step((nowMs() + LEAD_MS) / 1000);
}

// ---------------------------------------------------------------- drawing
function hex(c) {
  return "#" + c.toString(16).padStart(6, "0");
}

// Pixel i where the board has it: at the clock hour ``hours[i]`` seen from above, face up
// (web/page.py sends tools/simulated/events.py's RING_POSITIONS: on the Circuit Playground pixel 0
// is at 11 o'clock beside the USB connector and they count counter-clockwise).
function buildRing(n) {
  const ring = $("ring");
  ring.textContent = "";
  for (let i = 0; i < n; i++) {
    const hour = hours && hours.length === n ? hours[i] : (i * 12) / n;
    const a = (hour * 30 * Math.PI) / 180;
    const px = document.createElement("div");
    px.className = "pixel free";
    px.dataset.pixel = i;
    px.dataset.hour = hour;
    px.setAttribute("role", "img");
    px.style.left = 50 + 41 * Math.sin(a) + "%";
    px.style.top = 50 - 41 * Math.cos(a) + "%";
    px.innerHTML = '<span class="seat"></span><span class="what"></span>';
    ring.appendChild(px);
  }
}

function frame() {
  if (!page) return;
  const f = JSON.parse(page.frame());
  if (f.nvm) {
    try {
      localStorage.setItem(NVM_KEY, f.nvm);
    } catch (e) {
      console.warn("cannot keep the game in this browser", e);
    }
  }
  logFirst = showLog($("log"), logFirst,
    f.log.map(([i, t, text]) => [i, t, text, text.startsWith("KLAXON") ? "alarm" : ""]));
  $("asleep").hidden = !f.asleep;
  if (f.asleep && !(lastFrame && lastFrame.asleep)) holdScreen(false);
  // the status line follows the game (what the start said comes first until a press)
  const now = f.asleep ? "Asleep: press the Klaxon to wake" : f.status;
  if (now) status(note ? `${note}. ${now}` : now);
  if (f.px) drawRing(f);
  else if (f.asleep) drawDark();
  lastFrame = f;
}

function drawRing(f) {
  const ring = $("ring");
  if (ring.children.length !== f.px.length) buildRing(f.px.length);
  const seats = f.seats || new Array(f.px.length).fill(null); // the seat each pixel shows
  f.px.forEach((c, i) => {
    const el = ring.children[i];
    const [colour, pattern] = f.scene[i];
    el.style.background = hex(c);
    el.style.borderColor = c ? hex(c) : "#444";
    el.classList.toggle("free", seats[i] === null);
    el.querySelector(".seat").textContent = seats[i] === null ? "" : seats[i];
    const name = words.colours[colour];
    const what = colour ? (pattern ? `${name} ${words.patterns[pattern]}` : name) : "";
    el.querySelector(".what").textContent = what;
    el.setAttribute("aria-label", (seats[i] === null ? `pixel ${i}` : `seat ${seats[i]}`) +
      (what ? ": " + what + (pattern ? " blink" : "") : ": off"));
  });
}

function drawDark() {
  for (const el of $("ring").children) {
    el.style.background = "#000";
    el.style.borderColor = "#444";
    el.querySelector(".what").textContent = "";
  }
}

function animate() {
  try {
    frame();
  } catch (e) {
    fail("the firmware's VM stopped", e);
    return;
  }
  requestAnimationFrame(animate);
}

// ---------------------------------------------------------------- inputs
function wireInputs() {
  for (const control of ["klaxon", "a", "b"]) {
    const el = $(control);
    el.addEventListener("pointerdown", (e) => {
      e.preventDefault(); // no focus, no text selection: Space stays the Klaxon
      if (el.setPointerCapture) el.setPointerCapture(e.pointerId);
      hold(control, "p" + e.pointerId, true, e.timeStamp);
    });
    for (const ev of ["pointerup", "pointercancel", "lostpointercapture"]) {
      el.addEventListener(ev, (e) => hold(control, "p" + e.pointerId, false, e.timeStamp));
    }
    el.addEventListener("contextmenu", (e) => e.preventDefault()); // a long touch is a hold
    el.addEventListener("click", (e) => { // a screen reader's press (Enter is held above)
      if (e.detail !== 0) return; // a pointer's click: its down and up were taken already
      hold(control, "click", true, e.timeStamp);
      setTimeout(() => hold(control, "click", false, performance.now()), TAP_MS);
    });
  }
  // Space and K are the Klaxon and A and B the buttons wherever the focus is (a slammed
  // Space must never toggle Mute instead); Enter presses the focused control.
  const keys = { " ": "klaxon", k: "klaxon", a: "a", b: "b" };
  document.addEventListener("keydown", (e) => {
    const focused = e.target.closest && e.target.closest(".control");
    if (e.key === "Enter" && focused) { // Enter on a focused control holds it like a key
      e.preventDefault(); // (no click, nor a click a key repeat for each)
      if (!e.repeat) hold(focused.dataset.control, "kEnter", true, e.timeStamp);
      return;
    }
    const control = keys[e.key.toLowerCase()];
    if (!control || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    if (!e.repeat) hold(control, "k" + e.code, true, e.timeStamp);
  });
  document.addEventListener("keyup", (e) => {
    if (e.key === "Enter") {
      for (const c of Object.keys(holders)) hold(c, "kEnter", false, e.timeStamp);
      return;
    }
    const control = keys[e.key.toLowerCase()];
    if (control) {
      e.preventDefault(); // (a Space let go on a focused button would click it)
      hold(control, "k" + e.code, false, e.timeStamp);
    }
  });
  window.addEventListener("blur", () => { // keys let go elsewhere: let go here too
    for (const control of Object.keys(holders)) {
      for (const source of [...holders[control]]) {
        if (source[0] === "k") hold(control, source, false, performance.now());
      }
    }
  });
  $("forget").addEventListener("click", () => {
    if (confirm("Forget the saved game and start afresh?")) {
      page = null;
      try {
        localStorage.removeItem(NVM_KEY);
      } catch (e) { /* (nothing was kept) */ }
      location.reload();
    }
  });
  window.addEventListener("pagehide", () => { // closed or reloaded: keep the game as it is
    if (!page) return;
    page.flush();
    frame();
  });
  document.addEventListener("visibilitychange", () => {
    if (!page) return;
    frame();
    if (!document.hidden && !(lastFrame && lastFrame.asleep)) holdScreen(true);
  });
}

function showWords() {
  const legend = $("legend");
  for (const line of words.legend) {
    const li = document.createElement("li");
    li.textContent = line.trim();
    legend.appendChild(li);
  }
}

function showControls(rows) {
  const table = $("controls");
  rows.forEach((row, r) => {
    const tr = document.createElement("tr");
    for (const cell of row) {
      const td = document.createElement(r === 0 ? "th" : "td");
      td.textContent = cell;
      tr.appendChild(td);
    }
    table.appendChild(tr);
  });
}

// ---------------------------------------------------------------- start
// One board, one game: in a second tab of this browser the page does not start (both
// would keep their game in the same place, and the last to save would win).
function oneBoard() {
  if (!navigator.locks) return Promise.resolve(true);
  return new Promise((resolve) => {
    navigator.locks.request("qiklaxon-board", { ifAvailable: true }, (lock) => {
      resolve(!!lock);
      if (!lock) {
        qk.error = "another tab";
        status("The Klaxon is already running in another tab or window of this browser. " +
          "One board, one game: close that one, then reload this one.");
        $("app").setAttribute("aria-busy", "false");
        return null;
      }
      return new Promise(() => {}); // held while this page lives
    });
  });
}

// The scoreboard of a real board: the page's own board stops (its game kept), and the
// ring, the status line, the log and the speaker show the real one's.
function boardMode(py, source) {
  if (page) {
    page.flush();
    frame();
    page = null; // (the loop, the inputs and the drawing of this page's board stop)
  }
  for (const id of ["klaxon", "a", "b"]) $(id).disabled = true;
  note = null;
  audioContext();
  qk.mode = "board";
  return startBoard({
    py, $, status, play: playNow, duration: soundMs, drawRing,
    setHours: (h) => { hours = h; $("ring").textContent = ""; },
  }, source);
}

// "Connect a board": Web Serial where the browser has it (Chrome, Edge; the page must come
// from this computer or https), else what to run instead.
function wireConnect(py) {
  const button = $("connect");
  button.hidden = false;
  button.addEventListener("click", async () => {
    if (!navigator.serial) {
      const help = $("connect-help");
      help.hidden = false;
      help.textContent = "This browser cannot read a USB port (Web Serial: Chrome and Edge " +
        "can). On the computer the board is plugged into, run: python3 tools/dev.py web " +
        "--serial PORT (PORT: /dev/ttyACM0 on Linux, /dev/cu.usbmodem… on a Mac, COM3… " +
        "on Windows) and open the address it prints, in any browser.";
      return;
    }
    let port;
    try {
      port = await navigator.serial.requestPort();
    } catch (e) {
      return; // no port chosen
    }
    boardMode(py, webSerialSource(port));
  });
}

async function main() {
  try {
    let files, controls, bridge;
    try {
      [files, controls, bridge] = await Promise.all([
        fetch("device/files.json").then((r) => r.json()),
        fetch("device/controls.json").then((r) => r.json()),
        // (the server answers {"kind": "none"} without --serial: no 404 in the console)
        fetch("serial").then((r) => (r.ok ? r.json() : null), () => null)
          .then((b) => (b && b.kind === "status" ? b : null), () => null),
      ]);
    } catch (e) {
      fail("The device files are not beside the page (device/): serve it with " +
        "'python3 tools/dev.py web', or publish it with --publish", e);
      return;
    }
    mp = await loadMicroPython({
      stdout: (line) => console.log(line),
      stderr: (line) => console.warn(line),
    });
    const all = files.map((f) => "device/" + f).concat(["page.py"]);
    const data = await Promise.all(all.map(fetchBytes));
    all.forEach((path, i) => {
      writeFile(path === "page.py" ? "device/page.py" : path, data[i]);
      const m = path.match(/^device\/sounds\/(\w+)\.wav$/);
      if (m) audio.raw[m[1]] = data[i];
    });
    if (!bridge && !(await oneBoard())) return; // (a scoreboard keeps no game)
    mp.runPython("import sys\nsys.path.insert(0, '/device')");
    const py = mp.pyimport("page");
    words = JSON.parse(py.words());
    showWords();
    showControls(controls);
    wireSound();
    if (bridge) { // tools/dev.py web --serial PORT: the scoreboard of the board on PORT
      boardMode(py, serverSource());
      $("app").setAttribute("aria-busy", "false");
      qk.readyMs = performance.now();
      qk.ready = true;
      return;
    }
    const asked = /^[1-9][0-9]{0,9}$/.test(params.get("seed") || "") ? Number(params.get("seed")) : 0;
    const seed = asked >= 1 && asked < 2147483647 ? asked : (Date.now() % 2147483646) + 1;
    let saved = "";
    try {
      saved = localStorage.getItem(NVM_KEY) || "";
    } catch (e) { // (a browser that keeps nothing for this page: a new game each visit)
      console.warn("cannot read a kept game in this browser", e);
    }
    const klaxonOnly = params.has("klaxon-only") &&
      !["0", "no", "false", "off"].includes(params.get("klaxon-only"));
    const booted = JSON.parse(py.boot(saved, seed, klaxonOnly));
    hours = booted.hours;
    page = py;
    if (!booted.started) {
      frame();
      fail("The firmware could not start: see what happened");
      return;
    }
    t0 = performance.now();
    qk.seed = booted.seed;
    wireInputs();
    wireConnect(py);
    for (const id of ["klaxon", "a", "b"]) $(id).disabled = false;
    frame();
    note = booted.resumed ? "Ready: the saved game resumed" :
      booted.note ? "Ready: " + booted.note : "Ready: a new game";
    status(note);
    $("app").setAttribute("aria-busy", "false");
    qk.readyMs = performance.now();
    qk.ready = true;
    setTimeout(tick, TICK_MS);
    requestAnimationFrame(animate);
  } catch (e) {
    fail("The page could not start the firmware", e);
  }
}

// for the browser test: as if ``ms`` had passed at once (the loop catches up in quiet
// 100 ms passes, as after a hidden tab): the device's own timers run, sleep among them
qk.skip = (ms) => {
  if (typeof ms !== "number" || !(ms >= 0 && ms <= 366 * 24 * 3600 * 1000)) {
    throw new RangeError("skip 0 ms to a year");
  }
  t0 -= ms;
};
qk.baseLatencyMs = () => (audio.ctx && audio.ctx.baseLatency ? audio.ctx.baseLatency * 1000 : 0);
// for the browser test: what the device did, as the host harness would see it
qk.trace = () => JSON.parse(page.trace());
qk.state = () => JSON.parse(page.trace()).state;

main();
