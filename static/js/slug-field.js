// The link form's slug field (docs/web-ui.md#link-forms). Slugs are lowercase, so the
// field lower-cases as you type, keeping the caret where it was. The live check
// (GET /dashboard/links/validate-slug) names the slug you probably meant, computed on the
// server by the one rule (suggestSlug, docs/links.md#slug-suggestions); its "Use …"
// button puts that slug in the field and checks it again.
(function () {
  'use strict';

  document.addEventListener('input', function (ev) {
    var input = ev.target;
    if (!(input instanceof HTMLInputElement) || !input.hasAttribute('data-slug-input')) return;
    var typed = input.value;
    var lower = typed.toLowerCase();
    if (lower === typed) return;
    var start = input.selectionStart;
    var end = input.selectionEnd;
    input.value = lower;
    // A few characters change length when lower-cased; then the caret is left at the end.
    if (start !== null && end !== null && lower.length === typed.length) input.setSelectionRange(start, end);
  });

  document.addEventListener('click', function (ev) {
    var btn = ev.target instanceof Element ? ev.target.closest('[data-slug-suggestion]') : null;
    if (!btn) return;
    var form = btn.closest('form');
    var input = form && form.querySelector('[data-slug-input]');
    if (!input) return;
    ev.preventDefault();
    input.value = btn.getAttribute('data-slug-suggestion') || '';
    input.focus();
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
})();
