// The timeline's drawing at size (10,000 jobs on 1,000 nodes): only the lanes near the screen are
// in the page, a lane is redrawn only when what it shows changed, and the table shows a page of
// rows at a time, so a poll costs what changed rather than the whole queue.
import { h, s, jobHref, at, span, table } from './dom.js';

const LEFT = 150;
const WIDTH = 760;
const ROW = 30;
const TOP = 24;
const NEAR_PX = 1000;
export const PAGE_ROWS = 100;

const titleOf = (e) => `${e.ns}/${e.name} (${e.cls}) ${e.state === 'running' ? `running, expected to end ${at(new Date(e.to).toISOString())} (${e.basis})` : e.from ? `waiting, expected to start ${at(new Date(e.from).toISOString())} (in ${e.expectedIn})` : `waiting, no expected start: ${e.basis}`}. ${e.reason}: ${e.message}`;

export class TimelineChart {
  constructor() {
    this.svg = s('svg', { width: LEFT + WIDTH + 60, role: 'img', class: 'timeline' });
    this.axis = s('g', { class: 'axis' });
    this.lanes = s('g', { class: 'lanes' });
    this.svg.append(this.axis, this.lanes);
    this.drawn = new Map();
    this.layout = [];
    this.anchor = 0;
    this.horizon = 0;
    this.page = 0;
    this.sorted = [];
    this.tableKey = '';
    this.tableHolder = h('div', {});
    this.tableDue = false;
    this.tableEntries = [];
    this.scheduled = false;
    this.onScroll = () => {
      if (!this.svg.isConnected) {
        window.removeEventListener('scroll', this.onScroll);
      } else if (!this.scheduled) {
        this.scheduled = true;
        requestAnimationFrame(() => { this.scheduled = false; this.place(); });
      }
    };
    window.addEventListener('scroll', this.onScroll, { passive: true });
  }

  /** Lays out the lanes (node names in order, each with its entries) and draws what is near. */
  update(entries, rows, now, nsShown) {
    const last = entries.reduce((m, e) => Math.max(m, e.to || now), now);
    const horizon = Math.max(now + 60 * 1000, now + (last - now) * 1.25 + 30 * 1000);
    // the axis stays while "now" has moved less than 2 px along it and the horizon by under a
    // tenth: lanes whose jobs did not change are then left as they are
    const span0 = this.horizon - this.anchor;
    if (!this.anchor || ((now - this.anchor) * WIDTH) / span0 > 2 || Math.abs(horizon - this.horizon) > span0 / 10) {
      this.anchor = now;
      this.horizon = horizon;
      this.drawn.forEach((d) => d.g.remove());
      this.drawn.clear();
    }
    const t0 = this.anchor;
    const x = (t) => LEFT + ((Math.min(t, this.horizon) - t0) / (this.horizon - t0)) * WIDTH;
    const byLane = new Map(rows.map((name) => [name, []]));
    entries.forEach((e) => {
      if (!byLane.has(e.node)) { byLane.set(e.node, []); rows.push(e.node); }
      byLane.get(e.node).push(e);
    });
    // only a lane's height is reckoned for every lane; its bars only when it is near the screen
    let y = TOP;
    this.layout = rows.map((name) => {
      const lane = byLane.get(name);
      const height = Math.max(1, lane.length) * ROW;
      const at0 = y;
      y += height + 6;
      return { name, y: at0, height, lane };
    });
    this.x = x;
    this.svg.setAttribute('height', y + 4);
    this.svg.setAttribute('aria-label', `Timeline of ${entries.length} jobs on ${rows.length} rows: running ones to their expected end, waiting ones from their expected start, per node; the table below has the same facts.`);
    this.axis.replaceChildren();
    for (let i = 0; i <= 6; i++) {
      const t = t0 + ((this.horizon - t0) * i) / 6;
      this.axis.append(s('line', { class: 'grid', x1: x(t), x2: x(t), y1: 16, y2: y }), s('text', { x: x(t) - 12, y: 12 }, i === 0 ? 'now' : `+${span((t - t0) / 1000)}`));
    }
    this.place();
    // the table (every job sorted) follows the frame that paints the bars, so a decision is drawn
    // without waiting for it
    this.tableEntries = entries;
    this.nsShown = nsShown;
    if (!this.tableDue) {
      this.tableDue = true;
      requestAnimationFrame(() => setTimeout(() => {
        this.tableDue = false;
        this.sorted = [...this.tableEntries].sort((a, b) => (a.state === b.state ? (a.from ?? Infinity) - (b.from ?? Infinity) : a.state === 'running' ? -1 : 1));
        this.drawTable();
      }));
    }
  }

  /** Draws the lanes within NEAR_PX of the screen and drops the others. */
  place() {
    const top = this.svg.isConnected ? this.svg.getBoundingClientRect().top : 0;
    const from = -top - NEAR_PX;
    const to = -top + window.innerHeight + NEAR_PX;
    const near = new Set();
    for (const lane of this.layout) {
      if (lane.y + lane.height < from || lane.y > to) continue;
      near.add(lane.name);
      if (!lane.key) this.bars(lane);
      const d = this.drawn.get(lane.name);
      if (d && d.key === lane.key) {
        if (d.y !== lane.y) { d.g.setAttribute('transform', `translate(0,${lane.y})`); d.y = lane.y; }
        continue;
      }
      const g = laneOf(lane);
      if (d) d.g.replaceWith(g); else this.lanes.append(g);
      this.drawn.set(lane.name, { g, key: lane.key, y: lane.y });
    }
    for (const [name, d] of this.drawn) {
      if (!near.has(name)) { d.g.remove(); this.drawn.delete(name); }
    }
  }

  bars(lane) {
    const { x } = this;
    const sorted = lane.lane.sort((a, b) => (a.from ?? Infinity) - (b.from ?? Infinity));
    lane.bars = sorted.map((e, k) => {
      const from = e.state === 'running' ? this.anchor : e.from ?? this.horizon - 90 * 1000;
      return { e, k, x: Math.round(x(from)), width: Math.round(Math.max(e.to ? x(e.to) - x(from) : 90, 6)), title: titleOf(e) };
    });
    lane.key = JSON.stringify([lane.name, lane.bars.map((b) => [b.e.ns, b.e.name, b.e.state, b.e.cls, b.e.node, b.e.from, b.x, b.width, b.title])]);
  }

  drawTable() {
    const pages = Math.max(1, Math.ceil(this.sorted.length / PAGE_ROWS));
    this.page = Math.min(this.page, pages - 1);
    const first = this.page * PAGE_ROWS;
    const rows = this.sorted.slice(first, first + PAGE_ROWS).map((e) => [e.ns, e.name, e.node, e.cls, e.state, e.reason,
      e.state === 'running' ? `ends ~${at(new Date(e.to).toISOString())}` : e.from ? `starts ${at(new Date(e.from).toISOString())} (in ${e.expectedIn})` : 'unknown', e.basis]);
    const key = JSON.stringify([this.page, this.sorted.length, this.nsShown, rows]);
    if (key === this.tableKey) return;
    this.tableKey = key;
    const caption = pages > 1 ? `Running and waiting jobs, ${first + 1}–${first + rows.length} of ${this.sorted.length}` : 'Running and waiting jobs';
    const turn = (by, label) => {
      const b = h('button', { type: 'button', class: 'page', disabled: this.page + by < 0 || this.page + by >= pages }, label);
      b.addEventListener('click', () => { this.page += by; this.drawTable(); });
      return b;
    };
    this.tableHolder.replaceChildren(
      pages > 1 ? h('p', { class: 'pages' }, turn(-1, `Previous ${PAGE_ROWS}`), ' ', turn(1, `Next ${PAGE_ROWS}`)) : '',
      table(caption, ['Job', 'Node', 'Class', 'State', 'Reason', 'Expected', 'Basis'],
        rows.map(([ns, name, ...rest]) => ({ attrs: { 'data-job': `${ns}/${name}` }, cells: [h('a', { href: jobHref(ns, name) }, this.nsShown ? name : `${ns}/${name}`), ...rest] })),
        { class: 'queue-table' }));
  }
}

function laneOf(lane) {
  const g = s('g', { transform: `translate(0,${lane.y})`, 'data-lane': lane.name },
    s('text', { x: 4, y: 19 }, lane.name || 'no expected node'));
  for (const { e, k, x, width, title } of lane.bars) {
    g.append(s('a', { href: jobHref(e.ns, e.name), class: `bar ${e.state} ${e.cls}`, 'data-job': `${e.ns}/${e.name}`, 'data-state': e.state, 'data-node': e.node, 'data-from': e.from ? new Date(e.from).toISOString() : '' },
      s('title', {}, title),
      s('rect', { x, y: k * ROW + 2, width, height: ROW - 6, rx: 3 }),
      s('text', { x: x + 4, y: k * ROW + 18 }, e.name)));
  }
  g.append(s('line', { class: 'grid', x1: 0, x2: LEFT + WIDTH, y1: lane.height + 3, y2: lane.height + 3 }));
  return g;
}
