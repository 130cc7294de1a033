// The import page (docs/web-ui.md#importing-links). Without this file the form
// posts and the server answers the page with the report. With it, the form is
// sent in the background (XMLHttpRequest, for upload progress), the server
// answers one JSON line per row as it imports it, and the table, the totals
// and a progress bar follow along; the report can then be downloaded, and a
// preview offers to import the same file without choosing it again.
(function () {
  'use strict';

  var page = document.querySelector('[data-import-page]');
  if (!page) return;
  var form = page.querySelector('[data-import-form]');
  var result = page.querySelector('#import-result');
  var tbody = result.querySelector('[data-import-rows]');
  var title = result.querySelector('[data-import-title]');
  var progressBox = result.querySelector('[data-import-progress]');
  var bar = progressBox.querySelector('progress');
  var status = result.querySelector('[data-import-status]');
  var extra = result.querySelector('[data-import-extra]');
  var downloads = result.querySelector('[data-import-downloads]');
  var buttons = form.querySelectorAll('button[type="submit"]');
  var hint = form.querySelector('[data-import-noscript-hint]');
  if (hint) hint.hidden = true;

  var BADGE = {
    created: 'badge-success',
    updated: 'badge-info',
    skipped: 'badge-ghost border-base-content/30',
    refused: 'badge-error',
  };
  var report = null;

  function details(row) {
    var out = [];
    if (row.reason && row.reason !== 'unchanged') out.push(row.reason);
    if (row.action === 'skipped') out.push('unchanged');
    if (row.changes && row.changes.length) out.push('changes ' + row.changes.join(', '));
    (row.notes || []).forEach(function (n) {
      out.push(n);
    });
    if (typeof row.source_clicks === 'number')
      out.push(row.source_clicks + (row.source_clicks === 1 ? ' click' : ' clicks') + ' in the source');
    return out;
  }

  function cell(tr, cls, text) {
    var td = document.createElement('td');
    td.className = cls;
    if (text !== undefined) td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function addRow(row) {
    var tr = document.createElement('tr');
    tr.setAttribute('data-action', row.action);
    cell(tr, 'tabular-nums align-top', String(row.line));
    var main = cell(tr, 'align-top min-w-0');
    var name = document.createElement('div');
    name.className = 'wrap-anywhere font-mono text-sm font-semibold';
    name.textContent = row.slug || row.written || '—';
    main.appendChild(name);
    var ul = document.createElement('ul');
    ul.className = 'space-y-0.5 text-sm break-words text-base-content/80';
    details(row).forEach(function (d) {
      var li = document.createElement('li');
      li.textContent = d;
      ul.appendChild(li);
    });
    main.appendChild(ul);
    var badge = document.createElement('span');
    badge.className = 'badge badge-sm ' + (BADGE[row.action] || '');
    badge.textContent = row.action;
    cell(tr, 'align-top text-right').appendChild(badge);
    tbody.appendChild(tr);
  }

  function setCount(name, value) {
    var el = result.querySelector('[data-count="' + name + '"]');
    if (el) el.textContent = String(value);
  }

  function counts() {
    var c = { created: 0, updated: 0, skipped: 0, refused: 0 };
    report.rows.forEach(function (r) {
      c[r.action] = (c[r.action] || 0) + 1;
    });
    Object.keys(c).forEach(function (k) {
      setCount(k, c[k]);
    });
  }

  function extraLine(s) {
    var parts = [s.rows + ' rows read'];
    if (s.source_clicks > 0) parts.push(s.source_clicks + ' clicks counted by the source (reported, not stored)');
    if (s.dry_run) parts.push('nothing was written');
    return parts.join('; ') + '.';
  }

  function busy(on) {
    buttons.forEach(function (b) {
      b.disabled = on;
    });
  }

  function showError(message) {
    var alert = page.querySelector('[data-import-error]');
    if (!alert) {
      alert = document.createElement('div');
      alert.className = 'alert alert-error';
      alert.setAttribute('role', 'alert');
      alert.setAttribute('data-import-error', '');
      form.parentNode.insertBefore(alert, form);
    }
    alert.textContent = message;
    alert.hidden = false;
  }

  function clearError() {
    var alert = page.querySelector('[data-import-error]');
    if (alert) alert.hidden = true;
  }

  var importAfterPreview = null;

  function offerImport() {
    if (importAfterPreview) importAfterPreview.remove();
    var p = document.createElement('div');
    p.className = 'flex flex-wrap items-center gap-2';
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'btn btn-primary btn-sm';
    button.textContent = 'Import these links';
    button.setAttribute('data-import-confirm', '');
    button.addEventListener('click', function () {
      p.remove();
      send('import');
    });
    var note = document.createElement('span');
    note.className = 'text-sm text-base-content/70';
    note.textContent = 'Runs the same file for real; the rows this preview refused stay refused.';
    p.appendChild(button);
    p.appendChild(note);
    downloads.parentNode.parentNode.insertBefore(p, progressBox);
    importAfterPreview = p;
  }

  function send(mode) {
    var file = form.querySelector('input[type="file"]').files[0];
    if (!file) {
      showError('Choose a file to import.');
      return;
    }
    clearError();
    if (importAfterPreview) importAfterPreview.remove();
    var data = new FormData();
    data.append('from', form.querySelector('select[name="from"]').value);
    data.append('mode', mode);
    var keep = form.querySelector('input[name="keep_owners"]');
    if (keep && keep.checked) data.append('keep_owners', 'true');
    data.append('file', file);

    report = { format: null, dry_run: mode !== 'import', rows: [], summary: null, file: file.name };
    tbody.textContent = '';
    ['created', 'updated', 'skipped', 'refused'].forEach(function (k) {
      setCount(k, 0);
    });
    extra.textContent = '';
    downloads.hidden = true;
    title.textContent = mode === 'import' ? 'Importing…' : 'Previewing…';
    result.hidden = false;
    progressBox.hidden = false;
    bar.value = 0;
    status.textContent = 'Uploading ' + file.name + '…';
    busy(true);

    var xhr = new XMLHttpRequest();
    var seen = 0;
    var total = file.size || 1;
    var label = '';
    xhr.open('POST', form.getAttribute('action'));
    xhr.setRequestHeader('Accept', 'application/x-ndjson');
    xhr.upload.onprogress = function (e) {
      // The upload is the first half of the bar; importing the rows the second.
      if (e.lengthComputable) bar.value = Math.round((e.loaded / e.total) * 50);
    };
    function consume() {
      if (xhr.status !== 200) return;
      var text = xhr.responseText;
      var end;
      while ((end = text.indexOf('\n', seen)) !== -1) {
        var line = text.slice(seen, end);
        seen = end + 1;
        if (line === '') continue;
        var msg = JSON.parse(line);
        if (msg.type === 'start') {
          report.format = msg.format;
          label = msg.label;
          total = msg.bytes || 1;
          title.textContent = (msg.dry_run ? 'Preview: ' : 'Importing: ') + label;
        } else if (msg.type === 'row') {
          delete msg.type;
          var read = msg.read;
          delete msg.read;
          report.rows.push(msg);
          addRow(msg);
          bar.value = 50 + Math.round((Math.min(read, total) / total) * 50);
          status.textContent = report.rows.length + ' rows ' + (report.dry_run ? 'checked' : 'imported') + '…';
          if (report.rows.length % 50 === 0) counts();
        } else if (msg.type === 'summary') {
          delete msg.type;
          report.summary = msg;
        }
      }
    }
    xhr.onprogress = consume;
    xhr.onload = function () {
      busy(false);
      if (xhr.status !== 200) {
        progressBox.hidden = true;
        result.hidden = true;
        var message = 'The import failed (' + xhr.status + ').';
        try {
          message = JSON.parse(xhr.responseText).error || message;
        } catch (e) {
          if (xhr.status === 413) message = 'The file is too large to import.';
        }
        showError(message);
        return;
      }
      consume();
      counts();
      bar.value = 100;
      if (!report.summary) {
        status.textContent = 'The import stopped before the end of the file; the rows listed in the table were handled.';
        return;
      }
      title.textContent = (report.summary.dry_run ? 'Preview: ' : 'Imported: ') + label;
      status.textContent = report.summary.dry_run ? 'Preview done: nothing was written.' : 'Import done.';
      extra.textContent = extraLine(report.summary);
      downloads.hidden = false;
      if (report.summary.dry_run && report.summary.created + report.summary.updated > 0) offerImport();
    };
    xhr.onerror = function () {
      busy(false);
      progressBox.hidden = true;
      showError('The connection failed before the import finished; run a preview to see what was written.');
    };
    xhr.send(data);
  }

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var mode = e.submitter && e.submitter.value === 'import' ? 'import' : 'preview';
    send(mode);
  });

  // The click export's formula guard (src/domain/csv.ts neutralizeFormula): a text cell that starts with TAB or CR,
  // or whose first character after white space and control or format characters is = + - or @, gets a leading '
  // so a spreadsheet reads it as text. Slugs, names and reasons come from the imported file, which anyone may write.
  var FORMULA = /^[\p{Cc}\p{Cf}\p{Z}\s]*[=+\-@]/u;

  function neutralize(s) {
    if (s === '') return s;
    var first = s.charCodeAt(0);
    return first === 0x09 || first === 0x0d || FORMULA.test(s) ? "'" + s : s;
  }

  function csvField(v) {
    var s = v === undefined || v === null ? '' : typeof v === 'number' ? String(v) : neutralize(String(v));
    return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  function download(kind) {
    if (!report) return;
    var body;
    var type;
    if (kind === 'json') {
      body = JSON.stringify({ format: report.format, dry_run: report.dry_run, rows: report.rows, summary: report.summary }, null, 2);
      type = 'application/json';
    } else {
      var lines = ['line,slug,written,action,reason,changes,notes,source_clicks'];
      report.rows.forEach(function (r) {
        lines.push(
          [r.line, r.slug, r.written, r.action, r.reason, (r.changes || []).join(' '), (r.notes || []).join('; '), r.source_clicks]
            .map(csvField)
            .join(','),
        );
      });
      body = lines.join('\r\n') + '\r\n';
      type = 'text/csv';
    }
    var url = URL.createObjectURL(new Blob([body], { type: type }));
    var a = document.createElement('a');
    a.href = url;
    a.download = 'import-report.' + kind;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () {
      URL.revokeObjectURL(url);
    }, 1000);
  }

  downloads.querySelectorAll('[data-import-download]').forEach(function (b) {
    b.addEventListener('click', function () {
      download(b.getAttribute('data-import-download'));
    });
  });
})();
