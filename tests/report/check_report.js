#!/usr/bin/env node
/*
 * check_report.js: opens an hprof report page in Debian's chromium
 * (headless, through playwright-core: no browser is downloaded) and checks
 * it, in command-line order.
 *
 * Usage: node check_report.js REPORT.html [checks...]
 *   --flame ID              show flame graph ID (cpu-samples, alloc-bytes...);
 *                           the frame checks below apply to it
 *   --view fwd|rev          call tree, or the reverse (callers) view
 *   --frame NAME:MIN:MAX    the widest rendered frame whose name contains NAME
 *                           has a total share of the root within [MIN, MAX] %
 *   --delta NAME:MIN:MAX    (diff) that frame's change of share, in points of
 *                           percentage (new share - base share), is within bounds
 *   --no-frame NAME         no rendered frame's name contains NAME
 *   --zoom NAME             click that frame: it spans the graph's width and
 *                           its children are rendered; then Esc zooms back out
 *   --search TEXT:MIN:MAX   type TEXT into the search box: "matched: N%" is
 *                           within bounds and matching frames are highlighted
 *   --hot NAME:MIN:MAX      click NAME in the graph's "Hottest" list: the search
 *                           it starts matches that name only, "matched: N%" is
 *                           within bounds
 *   --tooltip NAME          hover the frame: the tooltip shows its name, self,
 *                           total and share
 *   --table ID:ROWS         table ID holds ROWS rows
 *   --sort ID:KEY           click column KEY's header of table ID
 *   --cell ID:ROW:KEY:TEXT  row ROW (1 = first shown) of table ID, column KEY,
 *                           reads TEXT
 *   --trace SERIAL:TEXT     click a link to trace SERIAL: the trace box shows TEXT
 *   --text STRING           STRING is in the page's DOM text
 *   --screenshot PNG        a full-page screenshot
 *   --max-render-ms N       the page's "hprof-render" measure is under N ms
 *   --max-load-ms N         navigation start to rendered is under N ms
 * Fails (exit 1, one line per failure on stderr) on a failed check, a page
 * error, a console error, or any request for something but the file itself.
 * Prints one JSON line of what it measured. Exit 2: usage.
 */
'use strict';
const path = require('path');
const fs = require('fs');
const { pathToFileURL } = require('url');

const CHROMIUM = process.env.HPROF_CHROMIUM || '/usr/bin/chromium';

function usage(msg) {
  process.stderr.write('check_report: ' + msg + '\nusage: node check_report.js REPORT.html [--flame ID] [--frame NAME:MIN:MAX] ...\n');
  process.exit(2);
}

/* NAME:A:B with NAME possibly holding ':' (split from the right). */
function splitRight(s, n, opt) {
  const parts = s.split(':');
  if (parts.length < n + 1) usage(opt + ' ' + s + ': expected ' + (n + 1) + ' fields separated by ":"');
  const tail = parts.splice(parts.length - n, n);
  return [parts.join(':'), ...tail];
}
function number(s, opt) {
  const v = Number(s);
  if (s === '' || !Number.isFinite(v)) usage(opt + ': "' + s + '" is not a number');
  return v;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 1 || args[0].startsWith('--')) usage('no report file');
  const file = path.resolve(args[0]);
  if (!fs.existsSync(file)) usage(file + ': no such file');
  const checks = [];
  const known = new Set(['--flame', '--view', '--frame', '--delta', '--no-frame', '--zoom', '--search', '--hot', '--tooltip', '--table', '--sort',
    '--cell', '--trace', '--text', '--screenshot', '--max-render-ms', '--max-load-ms']);
  for (let i = 1; i < args.length; i += 2) {
    if (!known.has(args[i])) usage('unknown option ' + args[i]);
    if (i + 1 >= args.length) usage(args[i] + ' needs a value');
    checks.push([args[i], args[i + 1]]);
  }
  if (!fs.existsSync(CHROMIUM)) {
    process.stderr.write('check_report: ' + CHROMIUM + ' is missing (scripts/deps.sh installs Debian\'s chromium)\n');
    process.exit(1);
  }
  const { chromium } = require('playwright-core');
  const failures = [];
  const fail = (m) => failures.push(m);
  const url = pathToFileURL(file).href;
  /* no background connections: the machine's network is closed, and the
   * check is that the page asks for nothing */
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
    args: ['--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
           '--no-first-run', '--disable-sync'] });
  let current = '(loading)';
  const out = { file: path.basename(file), bytes: fs.statSync(file).size, checks: checks.length };
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => fail('page error: ' + e.message));
    page.on('console', (m) => { if (m.type() === 'error') fail('console error: ' + m.text()); });
    await page.route('**/*', (route) => {
      const u = route.request().url();
      if (u === url) return route.continue();
      fail('outside reference: ' + u);
      return route.abort();
    });
    await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
    const perf = await page.evaluate(() => {
      const m = performance.getEntriesByName('hprof-render')[0];
      const r = performance.getEntriesByName('hprof-rendered')[0];
      return { render: m ? m.duration : -1, load: r ? r.startTime : -1 };
    });
    out.render_ms = Math.round(perf.render);
    out.load_ms = Math.round(perf.load);
    if (perf.render < 0) fail('no performance measure "hprof-render"');

    let flame = null;
    const gsel = () => '#flame-' + flame;
    /* the flame checks: its tab shown first (a table check may have left another one) */
    const needFlame = async (opt) => {
      if (!flame) { fail(opt + ': no --flame given before it'); return false; }
      await page.evaluate((id) => { if (document.getElementById('panel-flame-' + id).hidden) document.getElementById('tab-flame-' + id).click(); }, flame);
      return true;
    };
    /* the widest rendered frame whose name contains name (exact name first) */
    const widest = (name) => page.evaluate(([g, nm]) => {
      const fr = [...document.querySelectorAll(g + ' .f')];
      let c = fr.filter((e) => e.dataset.name === nm);
      if (!c.length) c = fr.filter((e) => e.dataset.name.includes(nm));
      if (!c.length) return null;
      c.sort((a, b) => b.getBoundingClientRect().width - a.getBoundingClientRect().width);
      const root = document.querySelector(g + ' .f[data-i="0"]');
      const e = c[0], r = e.getBoundingClientRect();
      return { i: e.dataset.i, name: e.dataset.name, total: +e.dataset.total, self: +e.dataset.self,
               rootTotal: root ? +root.dataset.total : NaN, x: r.x + Math.min(r.width / 2, 20), y: r.y + r.height / 2,
               width: r.width };
    }, [gsel(), name]);
    const showPanelOf = (sel) => page.evaluate((s) => {
      const e = document.querySelector(s);
      const p = e && e.closest('#panels > section');
      if (p && p.hidden) document.getElementById(p.id.replace(/^panel-/, 'tab-')).click();
      return !!e;
    }, sel);
    const flameRows = {};

    page.setDefaultTimeout(10000);
    for (const [opt, val] of checks) {
      current = opt + ' ' + val;
      if (opt === '--flame') {
        flame = val;
        const tab = await page.$('#tab-flame-' + val);
        if (!tab) { fail('--flame ' + val + ': no such flame graph tab'); flame = null; continue; }
        await tab.click();
        const n = await page.$$eval(gsel() + ' .f', (l) => l.length);
        flameRows[val] = n;
        if (n === 0) fail('--flame ' + val + ': no frame rendered');
      } else if (opt === '--view') {
        if (!(await needFlame(opt))) continue;
        if (val !== 'fwd' && val !== 'rev') usage('--view fwd|rev');
        const t0 = Date.now();
        await page.click('#view-' + val + '-' + flame);
        out['view_' + val + '_ms'] = Date.now() - t0;
        const mode = await page.$eval(gsel(), (g) => g.dataset.mode);
        if (mode !== val) fail('--view ' + val + ': the graph shows ' + mode);
      } else if (opt === '--frame') {
        if (!(await needFlame(opt))) continue;
        const [name, lo, hi] = splitRight(val, 2, opt);
        const f = await widest(name);
        if (!f) { fail('--frame ' + val + ': no frame named "' + name + '" rendered in ' + flame); continue; }
        const share = 100 * f.total / f.rootTotal;
        if (!(share >= number(lo, opt) && share <= number(hi, opt)))
          fail('--frame ' + val + ': "' + f.name + '" has ' + share.toFixed(2) + '% (' + f.total + ' of ' + f.rootTotal + ')');
      } else if (opt === '--delta') {
        if (!(await needFlame(opt))) continue;
        const [name, lo, hi] = splitRight(val, 2, opt);
        const f = await widest(name);
        if (!f) { fail('--delta ' + val + ': no frame named "' + name + '" rendered in ' + flame); continue; }
        const d = await page.$eval(gsel() + ' .f[data-i="' + f.i + '"]', (e) => e.dataset.delta);
        if (d === undefined) fail('--delta ' + val + ': the frame has no change of share (not a diff?)');
        else if (!(+d >= number(lo, opt) && +d <= number(hi, opt))) fail('--delta ' + val + ': "' + f.name + '" changed by ' + d + ' points');
      } else if (opt === '--no-frame') {
        if (!(await needFlame(opt))) continue;
        const f = await widest(val);
        if (f) fail('--no-frame ' + val + ': "' + f.name + '" is rendered');
      } else if (opt === '--zoom') {
        if (!(await needFlame(opt))) continue;
        const f = await widest(val);
        if (!f) { fail('--zoom ' + val + ': no such frame'); continue; }
        await page.mouse.click(f.x, f.y);
        const z = await page.evaluate((g) => {
          const gr = document.querySelector(g), e = gr.querySelector('.f.zoom');
          if (!e) return null;
          const kids = [...gr.querySelectorAll('.f')].filter((k) => !k.classList.contains('anc') && k !== e);
          const top = parseFloat(e.style.top);
          return { name: e.dataset.name, total: +e.dataset.total, self: +e.dataset.self, width: e.getBoundingClientRect().width,
                   gw: gr.clientWidth, kids: kids.length, direct: kids.filter((k) => parseFloat(k.style.top) > top).length,
                   details: document.querySelector('#details-' + g.slice(7)).textContent };
        }, gsel());
        if (!z) { fail('--zoom ' + val + ': no zoomed frame after the click'); continue; }
        if (z.name !== f.name) fail('--zoom ' + val + ': zoomed into "' + z.name + '", clicked "' + f.name + '"');
        if (Math.abs(z.width - z.gw) > 1) fail('--zoom ' + val + ': zoomed frame is ' + z.width + ' px wide, graph ' + z.gw);
        if (z.total > z.self && z.direct === 0) fail('--zoom ' + val + ': no child frame rendered under the zoomed frame');
        if (f.name !== 'all' && !z.details.includes(f.name)) fail('--zoom ' + val + ': the details do not name the frame');
        await page.keyboard.press('Escape');
        const back = await page.$eval(gsel(), (g) => g.dataset.zoom);
        if (back !== 'all') fail('--zoom ' + val + ': Esc did not zoom back out (zoom is "' + back + '")');
      } else if (opt === '--search') {
        if (!(await needFlame(opt))) continue;
        const [text, lo, hi] = splitRight(val, 2, opt);
        await page.fill('#search-' + flame, text);
        let p = null;
        try {
          await page.waitForFunction((id) => document.getElementById(id).dataset.pct !== undefined, 'match-' + flame, { timeout: 5000 });
          p = await page.$eval('#match-' + flame, (e) => ({ pct: +e.dataset.pct, text: e.textContent }));
        } catch (e) { /* reported below */ }
        const hl = await page.$$eval(gsel() + ' .f.m', (l) => l.length);
        if (!p) fail('--search ' + val + ': no "matched" share shown');
        else {
          if (!(p.pct >= number(lo, opt) && p.pct <= number(hi, opt))) fail('--search ' + val + ': ' + p.text);
          if (!p.text.includes(p.pct.toFixed(2) + '%')) fail('--search ' + val + ': the page says "' + p.text + '"');
          if (p.pct > 0 && hl === 0) fail('--search ' + val + ': no frame highlighted');
        }
        await page.fill('#search-' + flame, '');
        await page.waitForFunction((id) => document.getElementById(id).dataset.pct === undefined, 'match-' + flame, { timeout: 5000 });
      } else if (opt === '--hot') {
        if (!(await needFlame(opt))) continue;
        const [name, lo, hi] = splitRight(val, 2, opt);
        const links = await page.$$('#table-hot-' + flame + ' a.hot');
        let link = null;
        for (const l of links) if ((await l.textContent()) === name) link = l;
        if (!link) { fail('--hot ' + val + ': no such name in the hottest list'); continue; }
        await link.click();
        let p = null;
        try {
          await page.waitForFunction((id) => document.getElementById(id).dataset.pct !== undefined, 'match-' + flame, { timeout: 5000 });
          p = await page.$eval('#match-' + flame, (e) => ({ pct: +e.dataset.pct, text: e.textContent }));
        } catch (e) { /* reported below */ }
        if (!p) fail('--hot ' + val + ': no "matched" share shown');
        else if (!(p.pct >= number(lo, opt) && p.pct <= number(hi, opt))) fail('--hot ' + val + ': ' + p.text);
        await page.fill('#search-' + flame, '');
        await page.waitForFunction((id) => document.getElementById(id).dataset.pct === undefined, 'match-' + flame, { timeout: 5000 });
      } else if (opt === '--tooltip') {
        if (!(await needFlame(opt))) continue;
        const f = await widest(val);
        if (!f) { fail('--tooltip ' + val + ': no such frame'); continue; }
        await page.mouse.move(f.x, f.y);
        const t = await page.$eval('#tooltip', (e) => (e.hidden ? null : e.textContent));
        const share = (100 * f.total / f.rootTotal).toFixed(2) + '%';
        if (t === null) fail('--tooltip ' + val + ': no tooltip shown');
        else for (const want of [f.name, 'total: ' + f.total.toLocaleString('en-US'), 'self: ' + f.self.toLocaleString('en-US'), share])
          if (!t.includes(want)) fail('--tooltip ' + val + ': tooltip lacks "' + want + '": ' + t);
        await page.mouse.move(1, 1);
      } else if (opt === '--table') {
        const [id, rows] = splitRight(val, 1, opt);
        const n = await page.$eval('#table-' + id, (e) => +e.dataset.rows).catch(() => null);
        if (n === null) fail('--table ' + val + ': no table ' + id);
        else if (n !== number(rows, opt)) fail('--table ' + val + ': ' + n + ' rows');
      } else if (opt === '--sort') {
        const [id, key] = splitRight(val, 1, opt);
        const sel = '#table-' + id + ' th[data-key="' + key + '"]';
        if (!(await showPanelOf(sel))) { fail('--sort ' + val + ': no such column'); continue; }
        await page.click(sel);
      } else if (opt === '--cell') {
        const [idrow, key, text] = (() => { const p = val.split(':'); if (p.length < 4) usage('--cell ID:ROW:KEY:TEXT'); return [p.slice(0, 2), p[2], p.slice(3).join(':')]; })();
        const [id, row] = idrow;
        const got = await page.evaluate(([i, r, k]) => {
          const t = document.getElementById('table-' + i);
          if (!t) return { err: 'no table ' + i };
          const keys = [...t.querySelectorAll('thead th')].map((th) => th.dataset.key);
          const c = keys.indexOf(k);
          if (c < 0) return { err: 'no column ' + k };
          const tr = t.querySelectorAll('tbody tr')[r - 1];
          if (!tr) return { err: 'no row ' + r };
          return { text: tr.children[c].textContent };
        }, [id, number(row, opt), key]);
        if (got.err) fail('--cell ' + val + ': ' + got.err);
        else if (got.text !== text) fail('--cell ' + val + ': reads "' + got.text + '"');
      } else if (opt === '--trace') {
        const [serial, text] = (() => { const i = val.indexOf(':'); return i < 0 ? [val, ''] : [val.slice(0, i), val.slice(i + 1)]; })();
        const sel = 'a.trace[data-trace="' + serial + '"]';
        const link = await page.evaluate((s) => [...document.querySelectorAll(s)].some((e) => e.offsetParent !== null), sel);
        if (!link && !(await showPanelOf(sel))) { fail('--trace ' + val + ': no link to trace ' + serial); continue; }
        await page.locator(sel).filter({ visible: true }).first().click();
        const box = await page.$eval('#trace-box', (e) => (e.hidden ? null : { t: e.dataset.trace, text: e.textContent }));
        if (!box || box.t !== serial) fail('--trace ' + val + ': the trace box does not show trace ' + serial);
        else if (!box.text.includes(text)) fail('--trace ' + val + ': the trace box reads: ' + box.text);
        await page.keyboard.press('Escape');
      } else if (opt === '--text') {
        const has = await page.evaluate((s) => document.body.textContent.includes(s), val);
        if (!has) fail('--text ' + val + ': not in the page');
      } else if (opt === '--screenshot') {
        await page.screenshot({ path: val, fullPage: true });
      } else if (opt === '--max-render-ms') {
        if (!(perf.render >= 0 && perf.render < number(val, opt))) fail('--max-render-ms ' + val + ': rendered in ' + out.render_ms + ' ms');
      } else if (opt === '--max-load-ms') {
        if (!(perf.load >= 0 && perf.load < number(val, opt))) fail('--max-load-ms ' + val + ': loaded and rendered in ' + out.load_ms + ' ms');
      }
    }
    out.frames = flameRows;
  } catch (e) {
    fail(current + ': ' + e.message.split('\n')[0]);
  } finally {
    await browser.close();
  }
  out.failures = failures.length;
  process.stdout.write(JSON.stringify(out) + '\n');
  for (const f of failures) process.stderr.write('FAIL: ' + f + '\n');
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => { process.stderr.write('check_report: ' + e.stack + '\n'); process.exit(1); });
