import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goFormat, goPathEscape, goQueryEscape, goTimeString } from '../../src/domain/goText.js';

/** The parts of Go's library golink's templates call, as Go writes them. */

test('PathEscape and QueryEscape escape as url.PathEscape and url.QueryEscape', () => {
  assert.equal(goPathEscape('a b/c?d#e$&+:=@é'), 'a%20b%2Fc%3Fd%23e$&+:=@%C3%A9');
  assert.equal(goQueryEscape('a b/c?d#e$&+:=@é'), 'a+b%2Fc%3Fd%23e%24%26%2B%3A%3D%40%C3%A9');
});

test('time.Format reads Go’s reference-time layouts', () => {
  const at = new Date(Date.UTC(2026, 0, 2, 15, 4, 5));
  assert.equal(goFormat(at, '2006-01-02 15:04:05'), '2026-01-02 15:04:05');
  assert.equal(goFormat(at, 'Monday, January 2'), 'Friday, January 2');
  assert.equal(goFormat(at, 'Jan _2 3:04PM'), 'Jan  2 3:04PM');
  assert.equal(goTimeString(at), '2026-01-02 15:04:05 +0000 UTC');
});
