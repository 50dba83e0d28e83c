import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatPromFloat, otelLabelName, otelLabels, otelMetricName, otelUnitWord, promLabelName, promMetricName,
  type OtelNameKind,
} from './prom-names.js';

void test('OTel metric names follow the Prometheus compatibility naming rules', () => {
  const cases: [name: string, unit: string, kind: OtelNameKind, want: string, rule: string][] = [
    ['system.filesystem.usage', 'By', 'gauge', 'system_filesystem_usage_bytes', 'standard unit appended'],
    ['http.server.duration', 's', 'plain', 'http_server_duration_seconds', 's → seconds'],
    ['http.server.duration', 'ms', 'plain', 'http_server_duration_milliseconds', 'ms → milliseconds'],
    ['disk.io', 'MiBy', 'counter', 'disk_io_mebibytes_total', 'MiBy → mebibytes, then _total'],
    ['cpu.usage', '%', 'gauge', 'cpu_usage_percent', '% → percent'],
    ['room.temp', 'Cel', 'gauge', 'room_temp_celsius', 'Cel → celsius'],
    ['system.network.dropped', '{packets}', 'gauge', 'system_network_dropped', '{annotation} dropped'],
    ['system.network.dropped', 'packets', 'gauge', 'system_network_dropped_packets', 'unknown unit appended as is'],
    ['system.network.dropped', 'packets', 'counter', 'system_network_dropped_packets_total', 'monotonic sum → _total'],
    ['system.memory.utilization', '1', 'gauge', 'system_memory_utilization_ratio', 'unit 1 on a gauge → _ratio'],
    ['system.memory.utilization', '1', 'counter', 'system_memory_utilization_total', 'unit 1 on a counter: no _ratio'],
    ['system.memory.utilization', '1', 'plain', 'system_memory_utilization', 'unit 1 on a histogram: nothing'],
    ['ratio.of.things', '1', 'gauge', 'of_things_ratio', 'ratio moved to the end'],
    ['network.io', 'By/s', 'gauge', 'network_io_bytes_per_second', '/ → _per_'],
    ['requests', '{request}/s', 'gauge', 'requests_per_second', 'annotated main unit, per unit kept'],
    ['events', '1/h', 'gauge', 'events_per_hour', 'unit 1 over hours'],
    ['latency_seconds', 's', 'plain', 'latency_seconds', 'unit already in the name is not repeated'],
    ['foo_total', '', 'counter', 'foo_total', '_total not doubled'],
    ['total.foo', '', 'counter', 'foo_total', 'total token moved to the end'],
    ['(lambda).function.executions(#)', '', 'gauge', 'lambda_function_executions', 'invalid characters and extra _ dropped'],
    ['a..b__c', '', 'gauge', 'a_b_c', 'runs of separators collapse'],
    ['2xx.responses', '', 'gauge', '_2xx_responses', 'leading digit gets _'],
    ['café.orders', '', 'gauge', 'caf_orders', 'only ASCII letters and digits survive'],
    ['http.server.active_requests', '{request}', 'gauge', 'http_server_active_requests', 'semconv up-down counter'],
    ['...', '', 'gauge', '', 'nothing left'],
  ];
  for (const [name, unit, kind, want, rule] of cases) {
    assert.equal(otelMetricName(name, unit, kind), want, `${name} [${unit}] ${kind}: ${rule}`);
  }
});

void test('metadata unit words are the Prometheus unit', () => {
  const cases: [string, string][] = [['s', 'seconds'], ['By/s', 'bytes_per_second'], ['1', 'ratio'], ['{request}', ''],
    ['{request}/s', 'per_second'], ['', ''], ['widgets', 'widgets']];
  for (const [unit, want] of cases) assert.equal(otelUnitWord(unit), want, unit);
});

void test('attribute keys become label names by the compatibility rules', () => {
  const cases: [string, string][] = [
    ['http.method', 'http_method'], ['http-method', 'http_method'], ['k8s.pod.name', 'k8s_pod_name'],
    ['2xx', 'key_2xx'], ['_private', 'key_private'], ['__meta', '__meta'], ['ü', 'key_'], ['', ''],
    ['service.instance.id', 'service_instance_id'],
  ];
  for (const [key, want] of cases) assert.equal(otelLabelName(key), want, key);
});

void test('attributes that collide after sanitising join their values with ; in key order', () => {
  assert.deepEqual(otelLabels([['a_b', '2'], ['a.b', '1']]), { a_b: '1;2' });
  assert.deepEqual(otelLabels([['a.b', '1'], ['a_b', '2']]), { a_b: '1;2' });
  assert.deepEqual(otelLabels([['x', ''], ['__name__', 'no'], ['y', 'v']]), { y: 'v' }, 'empty values and __name__ dropped');
  const joinedLate = otelLabels([['z', '0'], ['a.b', '1'], ['k', 'v'], ['a_b', '2']]);
  assert.deepEqual(Object.entries(joinedLate), [['z', '0'], ['a_b', '1;2'], ['k', 'v']], 'a label shared late keeps its first place');
  assert.deepEqual(Object.entries(otelLabels([['k.1', 'a'], ['k.2', 'b']])), [['k_1', 'a'], ['k_2', 'b']]);
  assert.equal(otelLabelName('k.1'), 'k_1', 'the same key again, from the cache');
});

void test('Telegraf sanitising for line protocol names', () => {
  const metric: [string, string][] = [
    ['cpu_usage_idle', 'cpu_usage_idle'], ['ns:metric', 'ns:metric'], ['cpu usage', 'cpu_usage'],
    ['a-b.c', 'a_b_c'], ['9lives', 'lives'], ['-x-', 'x'], ['±', ''],
  ];
  for (const [name, want] of metric) assert.equal(promMetricName(name), want, name);
  const label: [string, string][] = [['host', 'host'], ['host-name', 'host_name'], ['a:b', 'a_b'], ['1abc', 'abc'], ['__x', '__x']];
  for (const [name, want] of label) assert.equal(promLabelName(name), want, name);
});

void test('floats are spelled like Go strconv.FormatFloat(v, f, -1)', () => {
  const cases: [number, string][] = [
    [0.1, '0.1'], [1, '1'], [0.99, '0.99'], [1e6, '1000000'], [1e-7, '0.0000001'], [-2.5e-8, '-0.000000025'],
    [1.23456e-8, '0.0000000123456'], [1e21, '1000000000000000000000'], [1.5e21, '1500000000000000000000'],
    [Infinity, '+Inf'], [-Infinity, '-Inf'], [NaN, 'NaN'], [Math.SQRT2, '1.4142135623730951'],
  ];
  for (const [v, want] of cases) assert.equal(formatPromFloat(v), want, String(v));
});
