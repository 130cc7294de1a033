// Viewer-local timestamps (docs/analytics.md#timestamps). The
// server renders every timestamp as <time datetime="RFC 3339 UTC">UTC text</time>;
// this rewrites the text to the browser's own zone with Intl.DateTimeFormat
// (no library, no timezone data shipped) and keeps the UTC form in `title`.
// A relative time (data-local="relative": "in 5 hours") keeps its text and
// gets the exact local time in `title` instead (docs/web-ui.md#rendering-conventions).
// It writes only through textContent and setAttribute, makes no requests, and
// runs again after every HTMX swap so fragments are localised too. Without
// JavaScript the UTC text simply stays.
(function () {
  'use strict';

  if (typeof Intl === 'undefined' || typeof Intl.DateTimeFormat !== 'function') return;

  var DATE_OPTS = { year: 'numeric', month: 'short', day: 'numeric' };
  var TIME_OPTS = { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' };
  var formats = null;
  function fmt() {
    if (formats) return formats;
    var utcOpts = {};
    for (var k in TIME_OPTS) utcOpts[k] = TIME_OPTS[k];
    utcOpts.timeZone = 'UTC';
    formats = {
      date: new Intl.DateTimeFormat(undefined, DATE_OPTS),
      datetime: new Intl.DateTimeFormat(undefined, TIME_OPTS),
      utc: new Intl.DateTimeFormat(undefined, utcOpts),
    };
    return formats;
  }

  // Only full instants: a bare date (`2026-07-17`) has no zone to convert from.
  var INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

  function localize() {
    var els = document.querySelectorAll('time[datetime]');
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      var iso = el.getAttribute('datetime') || '';
      // Already rewritten for this instant (a swap may leave elements in place).
      if (el.getAttribute('data-localized') === iso) continue;
      if (!INSTANT.test(iso)) continue;
      var at = new Date(iso);
      if (isNaN(at.getTime())) continue;
      var f = fmt();
      if (el.getAttribute('data-local') === 'relative') {
        // The server's relative text ("in 5 hours") stays; hovering shows the exact local time.
        el.setAttribute('title', f.datetime.format(at));
      } else {
        el.textContent = (el.getAttribute('data-local') === 'date' ? f.date : f.datetime).format(at);
        el.setAttribute('title', f.utc.format(at));
      }
      el.setAttribute('data-localized', iso);
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', localize);
  else localize();
  document.addEventListener('htmx:afterSwap', localize);
  document.addEventListener('htmx:afterSettle', localize);
  document.addEventListener('htmx:oobAfterSwap', localize);
})();
