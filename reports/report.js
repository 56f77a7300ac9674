/* oacheck report: the failures-only filter, pages of cases, expand/
 * collapse, sorting a table by a column and opening the case a link
 * points at.  The page is complete without this script; it only adds
 * controls.  It reads no data from the page but data-status (a fixed set
 * of words), the case counts on #brief-note, a sortable cell's data-v
 * number or text, the id a link points at, and the markup of a long
 * run's later pages, which wait in noscript.page blocks (with
 * scripts on, one text node each) and are made elements here, in order,
 * as the reader pages to them. */
(function () {
  'use strict';
  var controls = document.getElementById('controls');
  var only = document.getElementById('only-failures');
  var shown = document.getElementById('shown');
  var pager = document.getElementById('pager');
  var pageText = document.getElementById('page');
  var prev = document.getElementById('page-prev');
  var next = document.getElementById('page-next');
  var list = document.getElementById('cases');
  var note = document.getElementById('brief-note');
  var pagedNote = document.getElementById('paged-note');
  if (!controls || !only || !list) return;
  controls.hidden = false;
  if (pagedNote) pagedNote.hidden = true;

  /* The cases come failures first, so "failures only" is the first
   * nfail of them and a page is the same slice of the order either way.
   * A long run is shown PAGE at a time (OC_HTML_PAGE_CASES in
   * report_html.c), so the browser holds and lays out a page, not the
   * run. */
  var PAGE = 100;
  var page = 0;
  var cases = list.querySelectorAll('details.case');
  function isFailure(c) {
    var st = c.getAttribute('data-status');
    return st !== 'pass' && st !== 'skip';
  }
  var total = cases.length, nfail = 0;
  for (var f = 0; f < cases.length; f++) if (isFailure(cases[f])) nfail++;
  if (note) {
    total = parseInt(note.getAttribute('data-cases'), 10) || total;
    nfail = parseInt(note.getAttribute('data-failures'), 10) || 0;
  }
  var from = 0, to = 0; /* the slice shown */

  /* the next waiting block made elements in its place, hidden */
  function materialise() {
    var block = list.querySelector('noscript.page');
    if (!block) return false;
    var t = document.createElement('template');
    t.innerHTML = block.textContent;
    var fresh = t.content.querySelectorAll('details.case');
    for (var i = 0; i < fresh.length; i++) fresh[i].hidden = true;
    block.parentNode.replaceChild(t.content, block);
    cases = list.querySelectorAll('details.case');
    return true;
  }
  function count() { return only.checked ? nfail : total; }
  function pages() { return Math.max(1, Math.ceil(count() / PAGE)); }
  function showPage() {
    if (page >= pages()) page = pages() - 1;
    if (page < 0) page = 0;
    for (var i = from; i < to && i < cases.length; i++) cases[i].hidden = true;
    from = page * PAGE;
    to = Math.min(count(), from + PAGE);
    while (cases.length < to && materialise()) { /* the blocks up to this page */ }
    to = Math.min(to, cases.length);
    for (var k = from; k < to; k++) cases[k].hidden = false;
    /* a heading with none of its cases on this page goes too */
    var head = null, any = false;
    for (var el = list.firstElementChild; el; el = el.nextElementSibling) {
      if (el.tagName === 'H3') {
        if (head) head.hidden = !any;
        head = el;
        any = false;
      } else if (el.classList.contains('case') && !el.hidden) {
        any = true;
        if (head && head.classList.contains('group')) {
          /* the part heading above this group stays too */
          for (var h = head.previousElementSibling; h; h = h.previousElementSibling)
            if (h.tagName === 'H3' && h.classList.contains('part')) { h.hidden = false; break; }
        }
      }
    }
    if (head) head.hidden = !any;
    if (pager) {
      pager.hidden = count() <= PAGE;
      pageText.textContent = 'page ' + (page + 1) + ' of ' + pages() + ' (cases ' +
        (count() ? from + 1 : 0) + '–' + to + ')';
      prev.disabled = page === 0;
      next.disabled = page >= pages() - 1;
    }
  }
  function apply() {
    var on = only.checked;
    document.body.classList.toggle('only-failures', on);
    shown.textContent = count() + ' of ' + total + ' cases shown';
    try { sessionStorage.setItem('oacheck-only-failures', on ? '1' : ''); } catch (e) { /* file:// may refuse */ }
    showPage();
  }
  function setAll(open) {
    for (var i = from; i < to; i++) cases[i].open = open;
  }
  only.addEventListener('change', function () { page = 0; apply(); });
  document.getElementById('expand-all').addEventListener('click', function () { setAll(true); });
  document.getElementById('collapse-all').addEventListener('click', function () { setAll(false); });
  if (prev) prev.addEventListener('click', function () { page--; showPage(); });
  if (next) next.addEventListener('click', function () { page++; showPage(); });
  try { only.checked = sessionStorage.getItem('oacheck-only-failures') === '1'; } catch (e) { /* ignore */ }
  apply();

  /* a link to a case opens it, on its page (a closed <details>, another
   * page or a block not yet made elements would hide it) */
  function openTarget() {
    var id = location.hash.slice(1);
    if (!id) return;
    var el = document.getElementById(id);
    if (!el) {
      var mark = 'id="' + id + '"', blocks = list.querySelectorAll('noscript.page'), want = -1;
      for (var b = 0; b < blocks.length && want < 0; b++)
        if (blocks[b].textContent.indexOf(mark) >= 0) want = b;
      for (; want >= 0; want--) materialise();
      el = document.getElementById(id);
    }
    if (!el || el.tagName !== 'DETAILS') return;
    if (el.classList.contains('case')) {
      var at = Array.prototype.indexOf.call(cases, el);
      if (at >= nfail && only.checked) { only.checked = false; apply(); }
      if (at >= 0) { page = Math.floor(at / PAGE); showPage(); }
    }
    el.open = true;
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();

  /* sortable tables: a click on a heading sorts by that column, again to reverse */
  function key(cell, numeric) {
    if (!cell) return numeric ? Infinity : '';
    var v = cell.getAttribute('data-v');
    if (numeric) { var n = parseFloat(v); return isNaN(n) ? Infinity : n; }
    return (v !== null ? v : cell.textContent).toLowerCase();
  }
  function sortBy(table, col, asc) {
    var heads = table.querySelectorAll('thead th');
    var th = heads[col];
    if (!th || !th.hasAttribute('data-sort')) return;
    var numeric = th.getAttribute('data-sort') === 'num';
    for (var k = 0; k < heads.length; k++) heads[k].classList.remove('sorted-asc', 'sorted-desc');
    th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
      var c = x < y ? -1 : x > y ? 1 : 0;
      return asc ? c : -c;
    });
    for (var r = 0; r < rows.length; r++) body.appendChild(rows[r]);
  }
  var tables = document.querySelectorAll('table.sortable');
  for (var t = 0; t < tables.length; t++) {
    (function (table) {
      var heads = table.querySelectorAll('thead th');
      for (var h = 0; h < heads.length; h++) {
        (function (th, col) {
          if (!th.hasAttribute('data-sort')) return;
          th.title = 'sort by this column';
          th.addEventListener('click', function () {
            sortBy(table, col, !th.classList.contains('sorted-asc'));
          });
        })(heads[h], h);
      }
    })(tables[t]);
  }
  /* ?sort=N (or -N, descending) sorts the first sortable table by column N
   * when the page opens: a link can point at a sorted grid */
  var m = /[?&]sort=(-?)(\d+)/.exec(location.search);
  if (m && tables.length) sortBy(tables[0], parseInt(m[2], 10), m[1] !== '-');
})();
