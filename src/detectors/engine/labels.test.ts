// Alert identity and annotation templates (DESIGN §8): Alertmanager's fingerprints, label precedence, Prometheus'
// template expressions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alertLabels, fingerprint } from './labels.js';
import { expandTemplate, humanize, templateProblem } from './templates.js';

void describe('alert labels and fingerprints', () => {
  void it('fingerprints match prometheus/common model (LabelsToSignature test vectors)', () => {
    // model/signature_test.go TestLabelsToSignature and model/fingerprinting: FNV-1a 64 with 0xff separators.
    assert.equal(fingerprint({}), (14695981039346656037n).toString(16));
    assert.equal(BigInt(`0x${fingerprint({ name: 'garland, briggs', fear: 'love is not enough' })}`), 5799056148416392346n);
  });

  void it('a fingerprint is stable per label set, whatever the key order, and differs when a value does', () => {
    const a = fingerprint({ alertname: 'x', service: 'api', tenant: 't' });
    assert.match(a, /^[0-9a-f]{16}$/);
    assert.equal(fingerprint({ tenant: 't', service: 'api', alertname: 'x' }), a);
    assert.notEqual(fingerprint({ alertname: 'x', service: 'web', tenant: 't' }), a);
  });

  void it('labels: group values, then the detector\'s labels over them, then alertname/detector/tenant over all; empty values dropped', () => {
    const detector = { id: 'det_1', name: 'Errors high', tenantId: 'ten_1', labels: { severity: 'page', service: 'fixed' } };
    assert.deepEqual(alertLabels(detector, { service: 'api', region: 'eu', alertname: 'spoof', empty: '' }), {
      alertname: 'Errors high', detector: 'det_1', region: 'eu', service: 'fixed', severity: 'page', tenant: 'ten_1',
    });
  });
});

void describe('annotation templates', () => {
  const data = { value: 1234.5678, labels: { service: 'checkout', 'http.route': '/pay' } };
  const cases: [string, string][] = [
    ['{{ $value }} errors', '1234.5678 errors'],
    ['{{$value}}', '1234.5678'],
    ['{{ $labels.service }} is slow', 'checkout is slow'],
    ['{{ .Labels.service }} / {{ .Value }}', 'checkout / 1234.5678'],
    ['{{ index $labels "http.route" }}', '/pay'],
    ['{{ $labels.missing }}|', '|'],
    ['{{ humanize $value }}', '1.235k'],
    ['{{ $value | humanize }}', '1.235k'],
    ['{{ printf "%.2f" $value }}', '1234.57'],
    ['{{ $value | printf "%.0f" }}', '1235'],
    ['{{ humanizePercentage 0.1234 }}', '12.34%'],
    ['no template', 'no template'],
    ['{{ unknown $value }} stays', '{{ unknown $value }} stays'],
  ];
  for (const [template, want] of cases) void it(`${template} → ${want}`, () => { assert.equal(expandTemplate(template, data), want); });

  void it('humanize follows Prometheus (SI prefixes, 4 significant digits)', () => {
    assert.deepEqual([0, 1, 999, 1000, 1_500_000, 0.001, 0.0000025, -2500].map(humanize), ['0', '1', '999', '1k', '1.5M', '1m', '2.5u', '-2.5k']);
  });

  void it('a value that is not a number prints as Prometheus prints it', () => {
    assert.equal(expandTemplate('{{ $value }}', { value: Number.NaN, labels: {} }), 'NaN');
    assert.equal(expandTemplate('{{ $value }}', { value: Infinity, labels: {} }), '+Inf');
    assert.equal(expandTemplate('[{{ $value }}]', { value: null, labels: {} }), '[]');
  });

  void it('templateProblem names the unsupported expression, and passes the supported ones', () => {
    assert.equal(templateProblem('{{ $value }} on {{ $labels.host }} {{ humanize $value }}'), null);
    assert.equal(templateProblem('{{ range $labels }}x{{ end }}'), 'unsupported template expression {{ range $labels }}');
    assert.equal(templateProblem('{{ $value '), 'unbalanced {{ }}');
  });
});
