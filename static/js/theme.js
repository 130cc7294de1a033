// Runs synchronously in <head> before any stylesheet so the page never flashes
// the wrong theme: a valid `theme` cookie wins, else the system preference.
// It also marks the document as scripted, so no-JavaScript fallbacks can hide.
(function () {
  var root = document.documentElement;
  var m = document.cookie.match(/(?:^|;\s*)theme=(joe-light|joe-dark)(?:;|$)/);
  var theme = m ? m[1] : window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'joe-dark' : 'joe-light';
  root.setAttribute('data-theme', theme);
  root.classList.add('js');
})();
