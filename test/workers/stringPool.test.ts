import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { eventsOf, type ClickColumns } from '../../src/workers/clickSink.js';
import { StringPool } from '../../src/workers/stringPool.js';

/** Columns as the click thread receives them: every string a fresh copy. */
function received(c: ClickColumns): ClickColumns {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(c);
  const copy = receiveMessageOnPort(port2)!.message as ClickColumns;
  port1.close();
  return copy;
}

describe('waiting clicks share their repeated strings', () => {
  test('events read back through a pool keep every value, in order', () => {
    const sent: ClickColumns = {
      linkId: ['l1', 'l2', 'l1'],
      userId: [null, 'u1', 'u1'],
      ip: ['10.0.0.1', '10.0.0.2', '10.0.0.1'],
      userAgent: ['Firefox', undefined, 'Firefox'],
      referer: [undefined, 'https://wiki.example/a', 'https://wiki.example/a'],
      at: [1, 2, 3],
    };
    const events = [...eventsOf(received(sent), new StringPool())];
    assert.deepEqual(events, [
      { linkId: 'l1', userId: null, ip: '10.0.0.1', userAgent: 'Firefox', referer: undefined, at: 1 },
      { linkId: 'l2', userId: 'u1', ip: '10.0.0.2', userAgent: undefined, referer: 'https://wiki.example/a', at: 2 },
      { linkId: 'l1', userId: 'u1', ip: '10.0.0.1', userAgent: 'Firefox', referer: 'https://wiki.example/a', at: 3 },
    ]);
  });

  test('the pool keeps one entry per distinct string however many clicks repeat it', () => {
    const ua = `Mozilla/5.0 ${'x'.repeat(200)}`;
    const n = 2_000;
    const sent: ClickColumns = { linkId: [], userId: [], ip: [], userAgent: [], referer: [], at: [] };
    for (let i = 0; i < n; i++) {
      sent.linkId.push(`link-${i % 10}`);
      sent.userId.push(null);
      sent.ip.push('10.0.0.1');
      sent.userAgent.push(ua);
      sent.referer.push(undefined);
      sent.at.push(i);
    }
    const pool = new StringPool();
    const events = [...eventsOf(received(sent), pool)];
    assert.equal(events.length, n);
    assert.equal(pool.size, 12, 'ten link ids, one address and one user agent, each kept once');
    assert.ok(events.every((e, i) => e.userAgent === ua && e.ip === '10.0.0.1' && e.linkId === `link-${i % 10}`));
  });

  test('varied input cannot grow the pool past its limit', () => {
    const pool = new StringPool(100);
    for (let i = 0; i < 1_000; i++) assert.equal(pool.take(`agent-${i}`), `agent-${i}`);
    assert.ok(pool.size <= 100, `pool holds ${pool.size}`);
    assert.equal(pool.take(null), null);
    assert.equal(pool.take(undefined), undefined);
  });
});
