// The ingest plane (spec, Ingest plane paths; DESIGN §5 path words): every log and trace route, each a
// wire format on the one shared pipeline, plus the companion endpoints shippers probe.
import { Router } from '../front-doors/router.js';
import type { Handler } from '../front-doors/context.js';
import type { IngestPipeline, IngestRoute } from '../ingest/pipeline.js';
import type { IngestFormat } from '../ingest/format.js';
import { errors } from '../errors.js';
import { RouterPlane } from './router-plane.js';
import { nativeFormat } from '../ingest/formats/native-format.js';
import { otlpLogsFormat } from '../ingest/formats/otlp-logs.js';
import { otlpTracesFormat } from '../ingest/formats/otlp-traces.js';
import { elasticsearchBulkFormat, ELASTIC_PRODUCT_HEADERS } from '../ingest/formats/elasticsearch.js';
import { ELASTICSEARCH_COMPANION_ROUTES } from '../ingest/formats/elasticsearch-companions.js';
import { elasticsearchDocFormat } from '../ingest/formats/elasticsearch-doc.js';
import { createLokiFormat, lokiReadyHandler } from '../ingest/formats/loki.js';
import { syslogFormat } from '../ingest/formats/syslog.js';
import { fluentbitFormat } from '../ingest/formats/fluentbit.js';
import { vectorFormat } from '../ingest/formats/vector.js';
import { firehoseErrorFields, firehoseFormat } from '../ingest/formats/firehose.js';
import { hecErrorFields, hecEventFormat, hecRawFormat } from '../ingest/formats/hec.js';
import { hecAckHandler, hecHealthHandler } from '../ingest/formats/hec-companions.js';
import { gelfFormat } from '../ingest/formats/gelf.js';
import { drainFormat, herokuFormat, createVercelFormat, vercelVerifyHandler, verifyVercelSignature } from '../ingest/formats/drains.js';

export interface IngestPlaneDeps {
  pipeline: IngestPipeline;
  /** The spec's max_body_size_mb in bytes: the cap as received and after decompression. */
  maxBodyBytes: number;
  /** Vercel drain: the secret that signs deliveries (x-vercel-signature) and the verification token. */
  vercelDrainSecret?: string | undefined;
  vercelVerifyToken?: string | undefined;
}

interface LogRouteOptions {
  queryKeyAllowed?: boolean;
  firehoseKeyAllowed?: boolean;
  replyHeaders?: Record<string, string>;
  errorFields?: IngestRoute['errorFields'];
}

export function buildIngestPlane(deps: IngestPlaneDeps): RouterPlane {
  const router = new Router();
  const logRoute = (format: IngestFormat, options: LogRouteOptions = {}): Handler => {
    const route: IngestRoute = {
      format,
      plane: 'ingest',
      errorShape: 'logs',
      maxReceivedBytes: deps.maxBodyBytes,
      maxDecodedBytes: deps.maxBodyBytes,
      tooLarge: (decoded) => errors.payloadTooLarge(decoded, deps.maxBodyBytes),
      queryKeyAllowed: options.queryKeyAllowed ?? false,
      firehoseKeyAllowed: options.firehoseKeyAllowed ?? false,
      ...(options.replyHeaders ? { replyHeaders: options.replyHeaders } : {}),
      ...(options.errorFields ? { errorFields: options.errorFields } : {}),
    };
    return (ctx) => deps.pipeline.handle(ctx, route);
  };

  router.on('POST', '/api/v1/ingest', logRoute(nativeFormat));

  // OTLP/HTTP (wire-formats §3.2).
  router.on('POST', '/v1/logs', logRoute(otlpLogsFormat));
  router.on('POST', '/v1/traces', logRoute(otlpTracesFormat));

  // Elasticsearch bulk and the probes its clients make; every reply names the product (§3.3, §4).
  const es = logRoute(elasticsearchBulkFormat, { replyHeaders: ELASTIC_PRODUCT_HEADERS });
  for (const p of ['/_bulk', '/:index/_bulk', '/insert/elasticsearch/_bulk', '/insert/elasticsearch/:index/_bulk']) {
    router.on(['POST', 'PUT'], p, es);
  }
  for (const r of ELASTICSEARCH_COMPANION_ROUTES) router.on(r.methods, r.pattern, r.handler);
  const esDoc = logRoute(elasticsearchDocFormat, { replyHeaders: ELASTIC_PRODUCT_HEADERS });
  for (const prefix of ['', '/insert/elasticsearch']) {
    router.on('POST', `${prefix}/:index/_doc`, esDoc);
    router.on(['POST', 'PUT'], `${prefix}/:index/_doc/:id`, esDoc);
    router.on(['POST', 'PUT'], `${prefix}/:index/_create/:id`, esDoc);
  }

  // Loki push, JSON or snappy protobuf (§3.4), and the readiness probe.
  const loki = logRoute(createLokiFormat(deps.maxBodyBytes));
  router.on('POST', '/loki/api/v1/push', loki);
  router.on('POST', '/insert/loki/api/v1/push', loki);
  router.on('GET', '/ready', lokiReadyHandler);
  router.on('GET', '/loki/ready', lokiReadyHandler);

  router.on('POST', '/api/v1/syslog', logRoute(syslogFormat));

  // Forwarders (DESIGN §5: fluentbit and vector, with fluentd and logstash on the Fluent Bit parser).
  for (const p of ['/api/v1/fluentbit', '/api/v1/fluentd', '/api/v1/logstash']) router.on('POST', p, logRoute(fluentbitFormat));
  router.on('POST', '/api/v1/vector', logRoute(vectorFormat));

  // Firehose cannot send the spec's credential forms: X-Amz-Firehose-Access-Key here only (DESIGN §5).
  for (const p of ['/api/v1/cloudwatch', '/api/v1/firehose']) router.on('POST', p, logRoute(firehoseFormat, { firehoseKeyAllowed: true, errorFields: firehoseErrorFields }));

  // Splunk HEC (§3.12); the `Splunk` scheme itself is never parsed (spec rule 1).
  const hecEvent = logRoute(hecEventFormat, { errorFields: hecErrorFields });
  const hecRaw = logRoute(hecRawFormat, { errorFields: hecErrorFields });
  for (const p of ['/services/collector', '/services/collector/event', '/services/collector/event/1.0']) router.on('POST', p, hecEvent);
  for (const p of ['/services/collector/raw', '/services/collector/raw/1.0']) router.on('POST', p, hecRaw);
  for (const p of ['/services/collector/health', '/services/collector/health/1.0']) router.on('GET', p, hecHealthHandler);
  router.on('POST', '/services/collector/ack', hecAckHandler);

  // GELF and the platform drains take ?api_key= (credential table).
  const gelf = logRoute(gelfFormat, { queryKeyAllowed: true });
  router.on('POST', '/gelf', gelf);
  router.on('POST', '/api/v1/gelf', gelf);
  router.on('POST', '/api/v1/drain', logRoute(drainFormat, { queryKeyAllowed: true }));
  router.on('POST', '/api/v1/drain/heroku', logRoute(herokuFormat, { queryKeyAllowed: true }));
  router.on('POST', '/api/v1/drain/vercel', logRoute(signedVercelFormat(deps), { queryKeyAllowed: true }));
  router.on(['GET', 'HEAD'], '/api/v1/drain/vercel', vercelVerifyHandler(deps.vercelVerifyToken));
  return new RouterPlane(router);
}

/** With a drain secret configured, a delivery must carry a valid x-vercel-signature (§3.7 Security). */
function signedVercelFormat(deps: IngestPlaneDeps): IngestFormat {
  const base = createVercelFormat(deps.vercelVerifyToken);
  const secret = deps.vercelDrainSecret;
  if (secret === undefined) return base;
  return {
    ...base,
    parse(body, req) {
      const signature = req.headers['x-vercel-signature'];
      if (!verifyVercelSignature(body, secret, typeof signature === 'string' ? signature : undefined)) {
        throw errors.invalidSignature('x-vercel-signature does not match the body');
      }
      return base.parse(body, req);
    },
  };
}
