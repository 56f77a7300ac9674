/* oacheck report: the failures-only filter and expand/collapse.  The page
 * is complete without this script; it only adds controls.  It reads no
 * data from the page other than data-status, which the writer fills from
 * a fixed set of words. */
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
})();
