// The log: one line per step (a batch of events from one command), told in game terms by the
// game's renderer ("Ann uses the Wagon, travels to Blois and takes a wine."). Built from the
// caller's own event feed, so a seat reads its hidden moves and a spectator reads them redacted.

import { capital, el, listing, words } from "./dom.js";

const end = (text) => (/[.!?…]$/.test(text) ? text : `${text}.`);

// Phrases of one seat in a row become one sentence with the name first; sentences without a
// seat stand alone. Repeated phrases are said once ("places a follower" ×3 -> "places 3 followers"
// is the renderer's job; here only exact repeats collapse, with a count).
export function sentence(phrases, name) {
  const groups = [];
  for (const phrase of phrases) {
    const last = groups[groups.length - 1];
    if (last && phrase.seat !== null && last.seat === phrase.seat) last.texts.push(phrase.text);
    else groups.push({ seat: phrase.seat, texts: [phrase.text] });
  }
  return groups.map((g) => (g.seat === null ? g.texts.map(end).join(" ") : end(`${name(g.seat)} ${listing(collapse(g.texts))}`)))
    .join(" ");
}

function collapse(texts) {
  const out = [];
  for (const text of texts) {
    const last = out[out.length - 1];
    if (last && last.text === text) last.n += 1; else out.push({ text, n: 1 });
  }
  return out.map(({ text, n }) => (n === 1 ? text : `${text} (×${n})`));
}

// steps: the timeline's [{version, actor}]; events: the caller's events, seq ascending.
export function logLines(steps, events, describe, ctx) {
  const lines = [];
  let e = 0;
  let previous = 0;
  for (const step of steps) {
    const phrases = [];
    for (; e < events.length && events[e].seq <= step.version; e++) {
      if (events[e].seq <= previous) continue;
      const phrase = tell(describe, events[e], ctx);
      if (phrase && phrase.text) phrases.push(phrase);
    }
    previous = step.version;
    lines.push(phrases.length ? sentence(phrases, ctx.name) : quiet(step, ctx));
  }
  return lines;
}

// An event whose data a renderer did not expect (a newer rules version) gets the plain line
// instead of breaking the whole log.
function tell(describe, event, ctx) {
  try {
    return describe(event, ctx);
  } catch {
    return plainEvent(event);
  }
}

function quiet(step, ctx) {
  return step.actor === "system" ? "The game moves on." : `${ctx.name(step.actor)} moves on.`;
}

export function drawLog(list, steps, lines, current) {
  list.replaceChildren(...steps.map((step, i) => el("li", {
    "data-index": i, "data-version": step.version, class: i === current ? "current" : null,
  }, el("span", { class: `who ${typeof step.actor === "number" ? `seat-${step.actor}` : "system"}` }),
  el("span", { class: "text", text: lines[i] }))));
}

export function markCurrent(list, current) {
  list.querySelector("li.current")?.classList.remove("current");
  const li = list.querySelector(`li[data-index="${current}"]`);
  if (!li) return;
  li.classList.add("current");
  // Scroll the list only (scrollIntoView would scroll the page too); the list is position: relative.
  const top = li.offsetTop;
  if (top < list.scrollTop || top + li.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top - list.clientHeight / 2;
  }
}

// A renderer's describe() from a table {EventType: (data, ctx) -> null | text | [seat, text]}:
// a string is a sentence, a pair is what that seat does, null is not worth a line.
export function describer(phrases) {
  return (event, ctx) => {
    const phrase = phrases[event.type];
    if (!phrase) return plainEvent(event);
    const said = phrase(event.data, ctx);
    if (said === null) return null;
    return Array.isArray(said) ? { seat: said[0], text: said[1] } : { seat: null, text: said };
  };
}

// An event no table knows (a newer rules version, a game without a renderer): its type in words.
export function plainEvent(event) {
  const what = words(event.type.replace(/([a-z])([A-Z])/g, "$1_$2")).toLowerCase();
  const seat = typeof event.data.seat === "number" ? event.data.seat : null;
  return seat === null ? { seat: null, text: `${capital(what)}.` } : { seat, text: what };
}
