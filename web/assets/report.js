/*
 * report.js: the hprof report page's script (hand-written, no library,
 * nothing fetched). Reads the report data (the JSON document of
 * docs/report.md, the page's JSON script element, after this script) and draws: warnings, one tab per
 * flame graph (call tree and reverse "callers" view, zoom, search, tooltip,
 * diff colouring), the sortable tables with their traces, the heap summary
 * and the settings.
 *
 * Contract with tests (tests/report/check_report.js): frames are divs
 * (class "f") carrying their name as text and data-name, data-self,
 * data-total, data-i; body.dataset.ready = "1" after the first render; the
 * performance measure "hprof-render" spans script start to that render.
 * Only frames at least MIN_W px wide are put in the DOM (all frames of a
 * graph of at most ALL_FRAMES nodes).
 */
'use strict';
performance.mark('hprof-start');
(function () {
  const ROW = 17;
  const MIN_W = 1;
  const ALL_FRAMES = 5000;  /* a graph this small gets every frame, even sub-pixel ones, in the DOM */
  const NARROW = 28;  /* narrower frames keep their text, drawn transparent */
  const TABLE_LIMIT = 500;
  /* a stack can be a million frames deep (depth= goes that far): at most
   * this many levels are drawn below the zoomed frame, and this many of its
   * callers above it, so that a deep graph stays a few thousand elements */
  const MAX_LEVELS = 1000;
  const MAX_CALLERS = 40;
  const HEAP_TABLES = new Set(['retained-objects', 'retained-classes', 'histogram', 'roots', 'histogram-diff', 'heap-summary']);
  let D;
  let names;
  const views = {};
  let activeTab = null;

  /* ---------- small helpers ---------- */
  function h(tag, attrs, kids) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const k in attrs) {
        const v = attrs[k];
        if (v === undefined || v === null) continue;
        if (k === 'text') e.textContent = v;
        else if (k === 'class') e.className = v;
        else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v);
      }
    }
    if (kids) for (const c of kids) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  function num(v) {
    if (v === null || v === undefined) return '';
    return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', {maximumFractionDigits: 3});
  }
  function pct(part, whole) {
    return whole > 0 ? (100 * part / whole).toFixed(2) + '%' : '0.00%';
  }
  function nameOf(ix) {
    return ix < 0 ? 'all' : (names[ix] !== undefined ? String(names[ix]) : '?' + ix);
  }
  function lineText(line) {
    if (line > 0) return String(line);
    if (line === -2) return 'Compiled method';
    if (line === -3) return 'Native method';
    return 'Unknown line';
  }
  function hash(s) {
    let x = 2166136261;
    for (let i = 0; i < s.length; i++) x = Math.imul(x ^ s.charCodeAt(i), 16777619);
    return x >>> 0;
  }

  /* ---------- the stack trie ---------- */
  /* Nodes in preorder (root first); parent and subtree end from depths,
   * totals = self + children's totals (children come after their parent). */
  function Tree(name, depth, self, kind, trace, base) {
    const n = name.length;
    if (n === 0 || depth.length !== n || self.length !== n) throw new Error('flame nodes: arrays of unequal length or empty');
    const parent = new Int32Array(n), end = new Int32Array(n);
    const total = new Float64Array(n), btotal = base ? new Float64Array(n) : null;
    const st = [];
    let maxDepth = 0;
    for (let i = 0; i < n; i++) {
      const d = depth[i];
      if (i === 0 ? d !== 0 : !(d >= 1 && d <= st.length)) throw new Error('flame nodes: bad depth ' + d + ' at node ' + i);
      while (st.length > d) end[st.pop()] = i;
      parent[i] = st.length ? st[st.length - 1] : -1;
      st.push(i);
      if (d > maxDepth) maxDepth = d;
      total[i] = self[i];
      if (btotal) btotal[i] = base[i] || 0;
    }
    while (st.length) end[st.pop()] = n;
    for (let i = n - 1; i > 0; i--) {
      total[parent[i]] += total[i];
      if (btotal) btotal[parent[i]] += btotal[i];
    }
    return {n, name, depth, self, kind: kind || [], trace: trace || [], base: base || null,
            parent, end, total, btotal, maxDepth};
  }

  /* The reverse (bottom-up) tree: each stack with a count, read from its top
   * frame down to its outermost caller: the root's children are the methods
   * (or allocated classes) where the counts are, their children the callers. */
  function reverseTree(t) {
    /* the trie of reversed stacks; (parent, name) -> child in an open-addressing
     * table of typed arrays (a Map of 2.5 million keys was the slow part) */
    let cap = 1 << 16, used = 0;
    let hp = new Int32Array(cap).fill(-1), hn = new Int32Array(cap), hv = new Int32Array(cap);
    const slot = (p, nm) => {
      let h = (Math.imul(p, 0x9E3779B1) ^ Math.imul(nm + 1, 0x85EBCA6B)) & (cap - 1);
      while (hp[h] !== -1 && (hp[h] !== p || hn[h] !== nm)) h = (h + 1) & (cap - 1);
      return h;
    };
    const grow = () => {
      const op = hp, on = hn, ov = hv;
      cap *= 2;
      hp = new Int32Array(cap).fill(-1); hn = new Int32Array(cap); hv = new Int32Array(cap);
      for (let k = 0; k < op.length; k++) if (op[k] !== -1) { const h = slot(op[k], on[k]); hp[h] = op[k]; hn[h] = on[k]; hv[h] = ov[k]; }
    };
    const rName = [-1], rParent = [-1], rSelf = [0], rKind = [0], rTrace = [0], rBase = t.base ? [0] : null;
    for (let i = 1; i < t.n; i++) {
      const s = t.self[i], b = t.base ? t.base[i] || 0 : 0;
      if (s === 0 && b === 0) continue;
      let p = 0;
      for (let j = i; j > 0; j = t.parent[j]) {
        const nm = t.name[j], h = slot(p, nm);
        let c;
        if (hp[h] === -1) {
          c = rName.length;
          rName.push(nm); rParent.push(p); rSelf.push(0); rKind.push(t.kind[j] || 0); rTrace.push(0);
          if (rBase) rBase.push(0);
          hp[h] = p; hn[h] = nm; hv[h] = c;
          if (++used * 2 > cap) grow();
        } else c = hv[h];
        p = c;
      }
      rSelf[p] += s;
      if (rBase) rBase[p] += b;
      if (t.trace[i]) rTrace[p] = t.trace[i];
    }
    /* children in name order: names ranked once, integer compares */
    const byName = names.map((_, k) => k).sort((a, b) => { const x = String(names[a]), y = String(names[b]); return x < y ? -1 : x > y ? 1 : 0; });
    const rank = new Int32Array(names.length + 1);
    byName.forEach((k, r) => { rank[k + 1] = r + 1; });
    /* children lists in one array (first[p] .. first[p + 1]), each sorted by
     * name, descending: the stack below pops them in name order */
    const m = rName.length, first = new Int32Array(m + 1), kid = new Int32Array(m);
    for (let c = 1; c < m; c++) first[rParent[c] + 1]++;
    for (let k = 1; k <= m; k++) first[k] += first[k - 1];
    const at = first.slice(0, m);
    for (let c = 1; c < m; c++) kid[at[rParent[c]]++] = c;
    const byRank = (a, b) => rank[rName[b] + 1] - rank[rName[a] + 1];
    for (let p = 0; p < m; p++) if (first[p + 1] - first[p] > 1) kid.subarray(first[p], first[p + 1]).sort(byRank);
    const oName = new Int32Array(m), oDepth = new Int32Array(m), oSelf = new Float64Array(m), oKind = new Int8Array(m),
      oTrace = new Float64Array(m), oBase = rBase ? new Float64Array(m) : null;
    const stack = new Int32Array(m), dstack = new Int32Array(m);
    let sp = 1, o = 0;
    while (sp > 0) {
      sp--;
      const c = stack[sp], d = dstack[sp];
      oName[o] = rName[c]; oDepth[o] = d; oSelf[o] = rSelf[c]; oKind[o] = rKind[c]; oTrace[o] = rTrace[c];
      if (oBase) oBase[o] = rBase[c];
      o++;
      for (let k = first[c]; k < first[c + 1]; k++) { stack[sp] = kid[k]; dstack[sp] = d + 1; sp++; }
    }
    return Tree(oName, oDepth, oSelf, oKind, oTrace, oBase);
  }

  /* ---------- colours ---------- */
  const colourCache = new Map();
  function frameColour(nameIx, kind) {
    const key = nameIx * 4 + kind;
    let c = colourCache.get(key);
    if (c) return c;
    const s = nameOf(nameIx), x = hash(s);
    if (nameIx < 0) c = 'hsl(0,0%,80%)';
    else if (kind === 1) c = 'hsl(' + (195 + x % 25) + ',65%,' + (68 + (x >> 8) % 12) + '%)';
    else if (kind === 2) c = 'hsl(150,25%,' + (70 + x % 10) + '%)';
    else if (s.startsWith('<')) c = 'hsl(30,8%,' + (72 + x % 8) + '%)';  /* <no Java frames> and the like */
    else if (/^(java|javax|jdk|sun|com\.sun)\./.test(s)) c = 'hsl(' + (40 + x % 15) + ',85%,' + (58 + (x >> 8) % 10) + '%)';
    else c = 'hsl(' + (x % 30) + ',80%,' + (58 + (x >> 8) % 10) + '%)';
    colourCache.set(key, c);
    return c;
  }
  function diffColour(delta, maxAbs) {
    const k = Math.min(1, Math.abs(delta) / maxAbs);
    if (k < 0.02) return 'hsl(0,0%,92%)';
    return (delta > 0 ? 'hsl(0,85%,' : 'hsl(220,85%,') + (92 - 34 * k).toFixed(1) + '%)';
  }

  /* ---------- one flame graph ---------- */
  function FlameView(f, panel) {
    this.f = f;
    this.diff = Array.isArray(f.nodes.base);
    this.fwd = Tree(f.nodes.name, f.nodes.depth, f.nodes.self, f.nodes.kind, f.nodes.trace, this.diff ? f.nodes.base : null);
    this.rev = null;
    this.mode = 'fwd';
    this.zoom = 0;
    this.match = null;
    this.built = false;
    this.panel = panel;
  }
  FlameView.prototype.tree = function () {
    if (this.mode === 'rev' && !this.rev) this.rev = reverseTree(this.fwd);
    return this.mode === 'rev' ? this.rev : this.fwd;
  };
  FlameView.prototype.build = function () {
    const f = this.f, id = f.id, self = this;
    this.bFwd = h('button', {type: 'button', class: 'on', id: 'view-fwd-' + id, onclick: () => self.setMode('fwd')});
    this.bFwd.textContent = 'Call tree';
    this.bRev = h('button', {type: 'button', id: 'view-rev-' + id, title: 'who calls each method: stacks read from the top frame down', onclick: () => self.setMode('rev')});
    this.bRev.textContent = 'Reverse (callers)';
    this.search = h('input', {type: 'search', class: 'search', id: 'search-' + id, placeholder: 'Search: text or /regex/', 'aria-label': 'search frames'});
    this.search.addEventListener('input', () => { clearTimeout(self.st); self.st = setTimeout(() => self.doSearch(), 120); });
    this.matched = h('span', {class: 'matched', id: 'match-' + id});
    const reset = h('button', {type: 'button', id: 'reset-' + id, text: 'Reset zoom', onclick: () => self.setZoom(0)});
    const info = [num(this.fwd.total[0]) + ' ' + f.unit + ' in all'];
    if (this.diff) info.push('base: ' + num(this.fwd.btotal[0]) + ' ' + f.unit + ' (red: share grew, blue: share shrank; sized by the new profile)');
    this.panel.append(...[
      h('div', {class: 'toolbar'}, [h('span', {class: 'seg'}, [this.bFwd, this.bRev]), reset, this.search, this.matched]),
      h('p', {class: 'info', text: info.join(' \u00b7 ')}),
      f.estimate ? h('p', {class: 'estimate', text: 'Estimates: ' + f.estimate}) : null].filter(Boolean));
    if (!this.diff) {
      const sw = (c, label) => h('span', {class: 'sw'}, [h('i', {style: 'background:' + c}), label]);
      const kinds = new Set(f.nodes.kind || []);
      this.panel.append(h('p', {class: 'legend'}, [sw('hsl(12,80%,62%)', 'application code'), sw('hsl(46,85%,62%)', 'JDK'),
        kinds.has(1) ? sw('hsl(205,65%,72%)', 'allocated class') : null, sw('#ee5bd8', 'search match')]));
    }
    this.graph = h('div', {class: 'flame', id: 'flame-' + id, role: 'group', 'aria-label': f.title});
    this.details = h('div', {class: 'details', id: 'details-' + id});
    this.cutNote = h('p', {class: 'estimate', id: 'cut-' + id, hidden: ''});
    this.panel.append(this.graph, this.cutNote, this.details, ...this.hotTable());
    this.graph.addEventListener('click', (e) => {
      const t = e.target.closest('.f');
      if (t) self.setZoom(+t.dataset.i);
    });
    this.graph.addEventListener('mousemove', (e) => self.tip(e));
    this.graph.addEventListener('mouseleave', hideTip);
    this.built = true;
  };
  FlameView.prototype.setMode = function (m) {
    if (m === this.mode) return;
    this.mode = m;
    this.zoom = 0;
    this.bFwd.classList.toggle('on', m === 'fwd');
    this.bRev.classList.toggle('on', m === 'rev');
    this.doSearch(true);
    this.render();
  };
  FlameView.prototype.setZoom = function (i) {
    this.zoom = i;
    hideTip();
    this.render();
    this.showDetails(i);
  };
  FlameView.prototype.doSearch = function (quiet) {
    const q = this.search.value.trim();
    this.match = null;
    this.matched.textContent = '';
    this.matched.classList.remove('bad');
    delete this.matched.dataset.pct;
    if (q !== '') {
      let test;
      const re = /^\/(.+)\/([a-z]*)$/.exec(q);
      if (re) {
        try {
          /* as written (case-sensitive unless /i); no g or y: test() would keep state */
          const r = new RegExp(re[1], re[2].replace(/[gy]/g, ''));
          test = (s) => r.test(s);
        } catch (err) {
          this.matched.textContent = 'bad regex: ' + err.message;
          this.matched.classList.add('bad');
        }
      } else {
        const lq = q.toLowerCase();
        test = (s) => s.toLowerCase().includes(lq);
      }
      if (test) {
        const mn = new Uint8Array(names.length);
        for (let k = 0; k < names.length; k++) mn[k] = test(String(names[k])) ? 1 : 0;
        this.match = mn;
        const t = this.tree();
        let sum = 0;
        for (let i = 1; i < t.n;) {
          if (t.name[i] >= 0 && mn[t.name[i]]) { sum += t.total[i]; i = t.end[i]; } else i++;
        }
        const p = t.total[0] > 0 ? 100 * sum / t.total[0] : 0;
        this.matched.dataset.pct = p.toFixed(2);
        this.matched.dataset.total = String(sum);
        this.matched.textContent = 'matched: ' + p.toFixed(2) + '% of total (' + num(sum) + ' ' + this.f.unit + ')';
      }
    }
    if (quiet !== true) this.render();
  };
  /* The methods (or allocated classes) with the most self counts, and their
   * total: the counts of the stacks they are on, each stack once (recursion
   * does not count twice). One preorder pass with a count of each name on
   * the current path. A click on a name searches for it. */
  FlameView.prototype.hotTable = function () {
    const t = this.fwd, T = t.total[0], BT = this.diff ? t.btotal[0] : 0, u = this.f.unit, self = this;
    const L = names.length;
    const selfBy = new Float64Array(L), onceBy = new Float64Array(L), baseOnce = new Float64Array(L);
    const onPath = new Int32Array(L), path = [];
    for (let i = 1; i < t.n; i++) {
      while (path.length && t.end[path[path.length - 1]] <= i) onPath[t.name[path.pop()]]--;
      const nm = t.name[i];
      if (nm < 0 || nm >= L) continue;
      selfBy[nm] += t.self[i];
      if (onPath[nm] === 0) {
        onceBy[nm] += t.total[i];
        if (this.diff) baseOnce[nm] += t.btotal[i];
      }
      onPath[nm]++;
      path.push(i);
    }
    const link = (k) => h('a', {href: '#', class: 'hot', text: nameOf(k), onclick: (e) => {
      e.preventDefault();
      /* that name only: a plain search would also match the names it is a
       * prefix or part of (App.m1 in App.m10) and show a larger share */
      self.search.value = '/^' + nameOf(k).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + '$/';
      self.doSearch();
      self.graph.scrollIntoView({block: 'nearest'});
    }});
    const table = (id, summary, labels, keys, ks, cells) => h('details', {class: 'hotlist', open: ''}, [
      h('summary', {text: summary}),
      h('table', {id: id, class: 'hottable', 'data-rows': ks.length}, [
        h('thead', {}, [h('tr', {}, labels.map((x, j) => h('th', {scope: 'col', class: j ? 'n' : '', 'data-key': keys[j], text: x})))]),
        h('tbody', {}, ks.map((k) => h('tr', {}, [h('td', {}, [link(k)])].concat(cells(k).map((c) => h('td', {class: 'n', text: c}))))))])]);
    const top = [];
    for (let k = 0; k < L; k++) if (selfBy[k] > 0) top.push(k);
    top.sort((a, b) => selfBy[b] - selfBy[a] || a - b);
    top.length = Math.min(top.length, 20);
    /* allocation graphs: the self counts are the allocated classes' (the leaves) */
    const what = this.f.nodes.kind && this.f.nodes.kind.some((x) => x === 1) ? 'allocated class' : 'method';
    const out = [table('table-hot-' + this.f.id, 'Hottest ' + (this.diff ? '(new profile) ' : '') + 'by self ' + u + ': top ' + top.length,
      [what, 'self ' + u, 'self %', 'total ' + u, 'total %'], ['method', 'self', 'self_pct', 'total', 'total_pct'], top,
      (k) => [num(selfBy[k]), pct(selfBy[k], T), num(onceBy[k]), pct(onceBy[k], T)])];
    if (this.diff) {
      /* the biggest changes of total share, those gone from NEW included */
      const share = (k) => (T > 0 ? onceBy[k] / T : 0) - (BT > 0 ? baseOnce[k] / BT : 0);
      const ch = [];
      for (let k = 0; k < L; k++) if ((onceBy[k] > 0 || baseOnce[k] > 0) && Math.abs(share(k)) >= 5e-5) ch.push(k);
      ch.sort((a, b) => Math.abs(share(b)) - Math.abs(share(a)) || a - b);
      ch.length = Math.min(ch.length, 20);
      out.push(table('table-change-' + this.f.id, 'Biggest changes of total share: top ' + ch.length,
        ['method', 'base ' + u, 'base %', 'new ' + u, 'new %', 'change (points)'], ['method', 'base', 'base_pct', 'new', 'new_pct', 'change'], ch,
        (k) => { const d = 100 * share(k); return [num(baseOnce[k]), pct(baseOnce[k], BT), num(onceBy[k]), pct(onceBy[k], T), (d >= 0 ? '+' : '') + d.toFixed(2)]; }));
    }
    return out;
  };
  FlameView.prototype.render = function () {
    if (!this.built) this.build();
    const t = this.tree(), g = this.graph, W = g.clientWidth || 1000;
    const frag = document.createDocumentFragment();
    const T = t.total[0], BT = this.diff ? t.btotal[0] : 0;
    let maxAbs = 0.001;
    if (this.diff) for (let i = 0; i < t.n; i++) {
      const dd = Math.abs((T > 0 ? t.total[i] / T : 0) - (BT > 0 ? t.btotal[i] / BT : 0));
      if (i > 0 && dd > maxAbs) maxAbs = dd;
    }
    const mn = this.match, self = this;
    function add(i, x, w, cls) {
      const e = document.createElement('div');
      const nm = t.name[i];
      const delta = self.diff ? (T > 0 ? t.total[i] / T : 0) - (BT > 0 ? t.btotal[i] / BT : 0) : 0;
      let bg;
      if (mn && nm >= 0 && mn[nm]) bg = '#ee5bd8';
      else if (self.diff && i > 0) bg = diffColour(delta, maxAbs);
      else bg = frameColour(nm, t.kind[i] || 0);
      if (self.diff) e.dataset.delta = (100 * delta).toFixed(2);
      e.className = cls + (mn && nm >= 0 && mn[nm] ? ' m' : '') + (t.kind[i] === 1 ? ' k1' : '') + (w < NARROW ? ' nt' : '');
      e.style.cssText = 'left:' + x.toFixed(1) + 'px;width:' + w.toFixed(1) + 'px;top:' + ((t.depth[i] - top) * ROW) + 'px;background:' + bg;
      e.dataset.i = i;
      e.dataset.name = nameOf(nm);
      e.dataset.self = self.mode === 'rev' && i > 0 ? t.total[i] : t.self[i];
      e.dataset.total = t.total[i];
      e.textContent = nameOf(nm);
      frag.append(e);
    }
    const zd = t.depth[this.zoom], top = Math.max(0, zd - MAX_CALLERS), last = zd + MAX_LEVELS;
    for (let a = t.parent[this.zoom]; a >= 0 && t.depth[a] >= top; a = t.parent[a]) add(a, 0, W, 'f anc');
    const zt = t.total[this.zoom], scale = zt > 0 ? W / zt : 0;
    const minW = t.n <= ALL_FRAMES ? 0 : MIN_W;
    const stack = [this.zoom, 0];
    let count = 0, cut = 0;
    while (stack.length) {
      const x = stack.pop(), i = stack.pop();
      const w = i === this.zoom ? W : t.total[i] * scale;
      if (w < minW || !(w > 0)) continue;
      add(i, x, w, i === this.zoom ? 'f zoom' : 'f');
      count++;
      if (t.depth[i] >= last) { cut += t.end[i] > i + 1; continue; }
      let cx = x;
      for (let c = i + 1; c < t.end[i]; c = t.end[c]) {
        const cw = t.total[c] * scale;
        if (cw >= minW && cw > 0) stack.push(c, cx);
        cx += cw;
      }
    }
    g.style.height = ((Math.min(t.maxDepth, last) - top + 1) * ROW + 2) + 'px';
    g.replaceChildren(frag);
    this.cutNote.hidden = cut === 0;
    this.cutNote.textContent = cut ? 'Deeper frames are not drawn (' + MAX_LEVELS + ' levels below the zoomed frame at most): click a frame on the last row to zoom into it.' : '';
    g.dataset.cut = String(cut);
    g.dataset.frames = String(count);
    g.dataset.zoom = nameOf(t.name[this.zoom]);
    g.dataset.mode = this.mode;
  };
  FlameView.prototype.tip = function (e) {
    const el = e.target.closest('.f');
    if (!el) { hideTip(); return; }
    const t = this.tree(), i = +el.dataset.i, T = t.total[0], u = ' ' + this.f.unit;
    const lines = [h('b', {text: nameOf(t.name[i])})];
    if (t.kind[i] === 1) lines.push(h('div', {class: 'dim', text: 'allocated class'}));
    lines.push(h('div', {text: 'total: ' + num(t.total[i]) + u + ' (' + pct(t.total[i], T) + ' of all)'}));
    if (this.mode === 'rev' && i > 0) {
      let top = i;
      while (t.depth[top] > 1) top = t.parent[top];
      lines.push(h('div', {text: 'self: ' + num(t.total[i]) + u + ' (' + pct(t.total[i], T) + ')'}));
      if (top !== i) lines.push(h('div', {class: 'dim', text: 'self counts of ' + nameOf(t.name[top]) + ' reached through this caller'}));
    } else lines.push(h('div', {text: 'self: ' + num(t.self[i]) + u + ' (' + pct(t.self[i], T) + ')'}));
    if (this.zoom !== 0 && t.total[this.zoom] > 0) lines.push(h('div', {text: pct(t.total[i], t.total[this.zoom]) + ' of the zoomed frame'}));
    if (this.diff) {
      const BT = t.btotal[0], d = (T > 0 ? t.total[i] / T : 0) - (BT > 0 ? t.btotal[i] / BT : 0);
      lines.push(h('div', {text: 'base: total ' + num(t.btotal[i]) + u + ' (' + pct(t.btotal[i], BT) + '), self ' + num(t.base[i] || 0)}));
      lines.push(h('div', {class: d > 0 ? 'grew' : d < 0 ? 'shrank' : '', text: 'change of share: ' + (d >= 0 ? '+' : '') + (100 * d).toFixed(2) + ' points'}));
    }
    showTip(e, lines);
  };
  FlameView.prototype.showDetails = function (i) {
    const t = this.tree(), path = [];
    for (let a = i; a > 0; a = t.parent[a]) path.push(nameOf(t.name[a]));
    this.details.replaceChildren();
    if (i === 0) return;
    const T = t.total[0], u = ' ' + this.f.unit;
    this.details.append(
      h('div', {}, [h('b', {text: nameOf(t.name[i])}),
        ' \u2014 total ' + num(t.total[i]) + u + ' (' + pct(t.total[i], T) + ')' + (this.mode === 'rev' ? ' ' : ', self ' + num(t.self[i]) + u + ' '),
        !t.trace[i] ? null : D.traces && D.traces[String(t.trace[i])] ? traceLink(t.trace[i], 'trace ' + t.trace[i]) : 'trace ' + t.trace[i],
        ' ', h('button', {type: 'button', text: 'Back to all', onclick: () => this.setZoom(0)})]),
      h('div', {class: 'dim', text: this.mode === 'rev' ? 'frame, then its callers:' : 'stack, top frame first:'}),
      h('ol', {class: 'stack'}, path.map((p) => h('li', {text: p}))));
  };

  /* ---------- tooltip ---------- */
  const tipEl = () => document.getElementById('tooltip');
  function showTip(e, lines) {
    const tt = tipEl();
    tt.replaceChildren(...lines);
    tt.hidden = false;
    const r = tt.getBoundingClientRect();
    let x = e.clientX + 14, y = e.clientY + 16;
    if (x + r.width > window.innerWidth - 4) x = Math.max(4, e.clientX - r.width - 10);
    if (y + r.height > window.innerHeight - 4) y = Math.max(4, e.clientY - r.height - 10);
    tt.style.left = x + 'px';
    tt.style.top = y + 'px';
  }
  function hideTip() { tipEl().hidden = true; }

  /* ---------- traces ---------- */
  function traceLink(serial, label) {
    return h('a', {href: '#', class: 'trace', 'data-trace': serial, text: label,
      onclick: (e) => { e.preventDefault(); showTrace(serial); }});
  }
  function showTrace(serial) {
    const box = document.getElementById('trace-box');
    const tr = D.traces ? D.traces[String(serial)] : null;
    const body = [h('button', {type: 'button', class: 'close', 'aria-label': 'close', text: '\u00d7', onclick: () => { box.hidden = true; }}),
      h('h3', {text: 'TRACE ' + serial + (tr && tr.thread !== undefined ? ' (thread ' + tr.thread + ')' : '')})];
    if (!tr) body.push(h('p', {text: 'This trace\'s frames are not in the report.'}));
    else if (!tr.frames || tr.frames.length === 0) body.push(h('p', {text: '<empty>'}));
    else body.push(h('ol', {class: 'frames'}, tr.frames.map((fr) =>
      h('li', {text: nameOf(fr[0]) + '(' + (fr[1] || '<Unknown Source>') + ':' + lineText(fr[2]) + ')'}))));
    box.dataset.trace = String(serial);
    box.replaceChildren(...body);
    box.hidden = false;
  }

  /* ---------- tables ---------- */
  function cellText(v, type) {
    if (v === null || v === undefined) return '';
    if (type === 'pct') return (+v).toFixed(2) + '%';
    if (type === 'float') return (+v).toFixed(3);
    return String(v);
  }
  function buildTable(t) {
    const cols = t.columns || [], rows = t.rows || [];
    const sec = h('section', {class: 'table', id: 'sec-table-' + t.id}, [h('h3', {text: t.title || t.id})]);
    if (t.note) sec.append(h('p', {class: 'estimate', text: t.note}));
    const table = h('table', {id: 'table-' + t.id, 'data-rows': rows.length});
    const tr = h('tr');
    let order = rows.map((_, k) => k), sortCol = -1, desc = false, limit = TABLE_LIMIT;
    const tbody = h('tbody');
    const more = h('p', {class: 'more'});
    function fill() {
      const frag = document.createDocumentFragment();
      const m = Math.min(limit, order.length);
      for (let k = 0; k < m; k++) {
        const row = rows[order[k]], r = document.createElement('tr');
        cols.forEach((c, j) => {
          const td = document.createElement('td');
          const v = row[j];
          if (c.type === 'trace' && v) td.append(traceLink(v, String(v)));
          else td.textContent = cellText(v, c.type);
          if (c.type !== 'text') td.className = 'n';
          r.append(td);
        });
        frag.append(r);
      }
      tbody.replaceChildren(frag);
      more.replaceChildren();
      if (order.length > m) more.append('Showing ' + m + ' of ' + order.length + ' rows. ',
        h('button', {type: 'button', text: 'Show all', onclick: () => { limit = Infinity; fill(); }}));
    }
    cols.forEach((c, j) => {
      const th = h('th', {scope: 'col', class: c.type === 'text' ? '' : 'n', 'data-key': c.key, title: 'sort by ' + (c.label || c.key)});
      th.textContent = c.label || c.key;
      th.addEventListener('click', () => {
        const numeric = c.type !== 'text';
        desc = sortCol === j ? !desc : numeric;
        sortCol = j;
        order.sort((a, b) => {
          let x = rows[a][j], y = rows[b][j];
          if (numeric) { x = x === null ? -Infinity : +x; y = y === null ? -Infinity : +y; } else { x = String(x); y = String(y); }
          const r = x < y ? -1 : x > y ? 1 : a - b;
          return desc ? -r : r;
        });
        for (const o of tr.children) o.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
        fill();
      });
      tr.append(th);
    });
    table.append(h('thead', {}, [tr]), tbody);
    fill();
    sec.append(h('div', {class: 'scroll'}, [table]), more);
    return sec;
  }
  /* the leak suspects' sentences, as text */
  function suspectList(hp) {
    const sec = h('section', {id: 'suspects'}, [h('h3', {text: 'Leak suspects'})]);
    if (hp.suspects.length) sec.append(h('ol', {id: 'suspect-list'}, hp.suspects.map((s) => h('li', {text: String(s.text)}))));
    else sec.append(h('p', {id: 'suspect-none', text: String(hp.suspects_note || '')}));
    if (hp.suspect_rule) sec.append(h('p', {class: 'estimate', text: 'A suspect: ' + hp.suspect_rule + '.'}));
    return sec;
  }
  function kvTable(id, rows) {
    return h('table', {id: id, class: 'kv', 'data-rows': rows.length}, [h('tbody', {}, rows.map((r) =>
      h('tr', {}, [h('th', {scope: 'row', text: String(r[0])}), h('td', {text: String(r[1])})])))]);
  }

  /* ---------- tabs ---------- */
  function activate(id) {
    if (!document.getElementById('panel-' + id)) return;
    activeTab = id;
    for (const b of document.querySelectorAll('#tabs button')) {
      const on = b.dataset.tab === id;
      b.classList.toggle('on', on);
      b.setAttribute('aria-selected', on ? 'true' : 'false');
    }
    for (const p of document.querySelectorAll('#panels > section')) p.hidden = p.id !== 'panel-' + id;
    hideTip();
    if (views[id]) views[id].render();
  }

  function start() {
    /* the page's one JSON script element (its id is spelled only there, so
     * that a script can find the data by it) */
    const el = document.querySelector('script[type="application/json"]');
    if (!el) throw new Error('no report data in the page');
    const raw = el.textContent;
    D = JSON.parse(raw);
    if (!D || D.format !== 'hprof-report') throw new Error('not an hprof report data document');
    names = D.names || [];
    document.getElementById('title').textContent = (D.mode === 'diff' ? 'hprof diff: ' : 'hprof report: ') + (D.title || '');
    const meta = [];
    if (D.mode === 'diff' && D.diff) meta.push('base: ' + D.diff.base + ' \u2192 new: ' + D.diff.new);
    for (const inp of D.inputs || []) meta.push(inp.path + ' (' + inp.kind + ', ' + num(inp.bytes) + ' bytes)');
    if (D.generated) meta.push('generated ' + D.generated);
    document.getElementById('meta').textContent = meta.join(' \u00b7 ');
    const warn = document.getElementById('warnings');
    if (D.warnings && D.warnings.length) warn.append(h('ul', {}, D.warnings.map((w) => h('li', {text: String(w)}))));
    else warn.hidden = true;

    const tabs = document.getElementById('tabs'), panels = document.getElementById('panels');
    function addTab(id, label) {
      tabs.append(h('button', {type: 'button', role: 'tab', id: 'tab-' + id, 'data-tab': id, text: label, onclick: () => { activate(id); history.replaceState(null, '', '#' + id); }}));
      const p = h('section', {id: 'panel-' + id, role: 'tabpanel', 'aria-labelledby': 'tab-' + id});
      p.hidden = true;
      panels.append(p);
      return p;
    }
    for (const f of D.flames || []) {
      const id = 'flame-' + f.id, p = addTab(id, f.title || f.id);
      views[id] = new FlameView(f, p);
    }
    const tables = D.tables || [];
    const main = tables.filter((t) => !HEAP_TABLES.has(t.id)), heapT = tables.filter((t) => HEAP_TABLES.has(t.id));
    if (main.length) {
      const p = addTab('tables', 'Tables');
      for (const t of main) p.append(buildTable(t));
    }
    if (D.heap || heapT.length) {
      const p = addTab('heap', 'Heap');
      const hp = D.heap;
      if (hp && Array.isArray(hp.suspects)) p.append(suspectList(hp));
      if (hp) p.append(h('h3', {text: 'Heap dump'}), kvTable('heap-totals', [['objects', num(hp.objects)], ['bytes', num(hp.bytes)],
        ['classes', num(hp.classes)], ['roots', num(hp.roots)], ['shallow sizes', hp.shallow_size_rule || '']].concat(
        hp.reachable_objects === undefined ? (hp.retained_note ? [['retained sizes', hp.retained_note]] : []) :
          [['reachable objects', num(hp.reachable_objects)], ['unreachable objects (left out)', num(hp.unreachable_objects)],
            ['retained sizes', hp.retained_rule || '']])));
      for (const t of heapT) p.append(buildTable(t));
    }
    const ps = addTab('settings', 'Settings');
    ps.append(h('h3', {text: 'Settings'}), kvTable('settings', D.settings || []));
    if (D.inputs && D.inputs.length) ps.append(h('h3', {text: 'Inputs'}), kvTable('inputs', D.inputs.map((i) => [i.path, i.kind + ', ' + num(i.bytes) + ' bytes'])));
    if (!D.flames || !D.flames.length) warn.append(h('p', {text: 'No flame graph: the input holds no stack traces with counts.'}));

    const want = location.hash.slice(1);
    const first = document.querySelector('#tabs button');
    activate(document.getElementById('panel-' + want) ? want : first.dataset.tab);
  }

  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    const box = document.getElementById('trace-box');
    if (box && !box.hidden) { box.hidden = true; return; }
    const v = views[activeTab];
    if (v && v.zoom !== 0) v.setZoom(0);
  });
  let resizeT = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeT);
    resizeT = setTimeout(() => { if (views[activeTab]) views[activeTab].render(); }, 100);
  });

  /* the data element comes after this script (it is the page's last one):
   * draw once the document is parsed */
  function boot() {
    document.body.append(h('aside', {id: 'trace-box', role: 'dialog', 'aria-label': 'trace'}));
    document.getElementById('trace-box').hidden = true;
    try {
      start();
    } catch (err) {
      const w = document.getElementById('warnings');
      w.hidden = false;
      w.append(h('p', {class: 'error', text: 'This report could not be shown: ' + err.message}));
      console.error('hprof report: ' + err.message);
    }
    void document.body.offsetHeight;
    performance.mark('hprof-rendered');
    performance.measure('hprof-render', 'hprof-start', 'hprof-rendered');
    document.body.dataset.ready = '1';
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
