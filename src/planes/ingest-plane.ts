// The ingest plane (spec, Ingest plane paths; DESIGN §5 path words): every log and trace route, each a
// wire format on the one shared pipeline, plus the companion endpoints shippers probe.
import { Router } from '../front-doors/router.js';
import type { Handler } from '../front-doors/context.js';
import type { IngestPipeline, IngestRoute } from '../ingest/pipeline.js';
import type { IngestFormat } from '../ingest/format.js';
import { errors } from '../errors.js';
import { RouterPlane } from './router-plane.js';
import { nativeFormat } from '../ingest/formats/native-format.js';

export interface IngestPlaneDeps {
  pipeline: IngestPipeline;
  /** The spec's max_body_size_mb in bytes: the cap as received and after decompression. */
  maxBodyBytes: number;
}

interface LogRouteOptions {
  queryKeyAllowed?: boolean;
  firehoseKeyAllowed?: boolean;
  replyHeaders?: Record<string, string>;
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
    };
    return (ctx) => deps.pipeline.handle(ctx, route);
  };

  router.on('POST', '/api/v1/ingest', logRoute(nativeFormat));
  return new RouterPlane(router);
}
