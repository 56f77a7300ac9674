/* oacheck report: the failures-only filter, expand/collapse, sorting a
 * table by a column and opening the case a link points at.  The page is
 * complete without this script; it only adds controls.  It reads no data
 * from the page but data-status (a fixed set of words), a sortable
 * cell's data-v number or text, and the id a link points at. */
(function () {
  'use strict';
  var controls = document.getElementById('controls');
  var only = document.getElementById('only-failures');
  var shown = document.getElementById('shown');
  var cases = document.querySelectorAll('.case');
  if (!controls || !only) return;
  controls.hidden = false;

  function apply() {
    var on = only.checked;
    var n = 0;
    document.body.classList.toggle('only-failures', on);
    for (var i = 0; i < cases.length; i++) {
      var st = cases[i].getAttribute('data-status');
      var visible = !on || (st !== 'pass' && st !== 'skip');
      if (visible) n++;
    }
    shown.textContent = n + ' of ' + cases.length + ' cases shown';
    try { sessionStorage.setItem('oacheck-only-failures', on ? '1' : ''); } catch (e) { /* file:// may refuse */ }
  }
  function setAll(open) {
    for (var i = 0; i < cases.length; i++) cases[i].open = open;
  }
  only.addEventListener('change', apply);
  document.getElementById('expand-all').addEventListener('click', function () { setAll(true); });
  document.getElementById('collapse-all').addEventListener('click', function () { setAll(false); });
  try { only.checked = sessionStorage.getItem('oacheck-only-failures') === '1'; } catch (e) { /* ignore */ }
  apply();

  /* a link to a case opens it (a closed <details> would hide its body) */
  function openTarget() {
    var id = location.hash.slice(1);
    var el = id ? document.getElementById(id) : null;
    if (el && el.tagName === 'DETAILS') el.open = true;
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
