// The endpoints Elasticsearch shippers call besides _bulk (wire-formats.md §3.3 "Companion endpoints",
// §4 and §6): version ping, license, template/ILM/ingest/data-stream probes, health, `_refresh`.
// Sightline keeps no templates or policies: probes answer "present and fine", writes are acknowledged.
// Every reply here carries X-Elastic-Product: Elasticsearch, or the ES clients' product check fails.
import type { Handler, RequestContext } from '../../front-doors/context.js';
import { sendJson } from '../../front-doors/reply.js';
import { ELASTIC_PRODUCT_HEADERS } from './elasticsearch.js';

/** Reported version: 8.x, as Filebeat/Logstash 8 and the JS client expect (§3.3, §4). */
export const ES_VERSION = '8.17.0';
const CLUSTER = 'sightline';
const UUID = 'c2lnaHRsaW5lLWNsdXN0ZXI';

function reply(ctx: RequestContext, status: number, body: unknown): Promise<void> {
  sendJson(ctx.res, status, body, { ...ELASTIC_PRODUCT_HEADERS }); // HEAD: Node sends the headers only
  return Promise.resolve();
}

const isWrite = (ctx: RequestContext) => ctx.method === 'PUT' || ctx.method === 'POST' || ctx.method === 'DELETE';
const ACK = { acknowledged: true };

/** GET/HEAD `/`: the version document clients read `version.number` and `tagline` from. */
export const esRootHandler: Handler = (ctx) => reply(ctx, 200, {
  name: CLUSTER,
  cluster_name: CLUSTER,
  cluster_uuid: UUID,
  version: {
    number: ES_VERSION,
    build_flavor: 'default',
    build_type: 'docker',
    build_hash: '0000000000000000000000000000000000000000',
    build_date: '2024-12-11T00:00:00.000Z',
    build_snapshot: false,
    lucene_version: '9.12.0',
    minimum_wire_compatibility_version: '7.17.0',
    minimum_index_compatibility_version: '7.0.0',
  },
  tagline: 'You Know, for Search',
});

const LICENSE = { uid: UUID, type: 'basic', mode: 'basic', status: 'active', issued_to: CLUSTER, issuer: 'elasticsearch', max_nodes: 1000 };

export const esLicenseHandler: Handler = (ctx) => reply(ctx, 200, { license: LICENSE });

export const esXpackHandler: Handler = (ctx) => reply(ctx, 200, {
  build: { hash: '0000000', date: '2024-12-11T00:00:00.000Z' },
  license: LICENSE,
  features: {},
});

export const esClusterHealthHandler: Handler = (ctx) => reply(ctx, 200, {
  cluster_name: CLUSTER, status: 'green', timed_out: false, number_of_nodes: 1, number_of_data_nodes: 1,
  active_primary_shards: 0, active_shards: 0, relocating_shards: 0, initializing_shards: 0, unassigned_shards: 0,
  delayed_unassigned_shards: 0, number_of_pending_tasks: 0, number_of_in_flight_fetch: 0,
  task_max_waiting_in_queue_millis: 0, active_shards_percent_as_number: 100.0,
});

export const esNodesHandler: Handler = (ctx) => reply(ctx, 200, {
  _nodes: { total: 1, successful: 1, failed: 0 }, cluster_name: CLUSTER, nodes: {},
});

/** `_cat/*`: JSON `[]` with `format=json`, else the (empty) text table. */
export const esCatHandler: Handler = (ctx) => {
  if (ctx.query.get('format') === 'json') return reply(ctx, 200, []);
  ctx.res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8', 'Content-Length': 0, ...ELASTIC_PRODUCT_HEADERS });
  ctx.res.end();
  return Promise.resolve();
};

/** Template / ILM / ingest / logstash / alias probes: reads and HEADs 200 `{}`, writes `{"acknowledged":true}`. */
export const esProbeHandler: Handler = (ctx) => reply(ctx, 200, isWrite(ctx) ? ACK : {});

/** `_data_stream/*`: no data streams to list; creating one is acknowledged (they appear on first write). */
export const esDataStreamHandler: Handler = (ctx) => reply(ctx, 200, isWrite(ctx) ? ACK : { data_streams: [] });

/** GET|POST `/<index>/_refresh` (pino-elasticsearch calls it when its stream ends, §6). */
export const esRefreshHandler: Handler = (ctx) => reply(ctx, 200, { _shards: { total: 1, successful: 1, failed: 0 } });

export type CompanionMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

export interface CompanionRoute {
  methods: CompanionMethod[];
  /** find-my-way pattern. */
  pattern: string;
  handler: Handler;
}

const READ: CompanionMethod[] = ['GET', 'HEAD'];
const READ_WRITE: CompanionMethod[] = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'];

const ROUTES: CompanionRoute[] = [
  { methods: READ, pattern: '/', handler: esRootHandler },
  { methods: READ, pattern: '/_license', handler: esLicenseHandler },
  { methods: READ, pattern: '/_xpack', handler: esXpackHandler },
  { methods: READ, pattern: '/_xpack/*', handler: esXpackHandler },
  { methods: READ, pattern: '/_cluster/health', handler: esClusterHealthHandler },
  { methods: READ, pattern: '/_cluster/health/*', handler: esClusterHealthHandler },
  { methods: READ, pattern: '/_nodes', handler: esNodesHandler },
  { methods: READ, pattern: '/_nodes/*', handler: esNodesHandler },
  { methods: READ, pattern: '/_cat/*', handler: esCatHandler },
  { methods: READ_WRITE, pattern: '/_ilm/*', handler: esProbeHandler },
  { methods: READ_WRITE, pattern: '/_index_template/*', handler: esProbeHandler },
  { methods: READ_WRITE, pattern: '/_component_template/*', handler: esProbeHandler },
  { methods: READ_WRITE, pattern: '/_template/*', handler: esProbeHandler },
  { methods: READ_WRITE, pattern: '/_ingest/*', handler: esProbeHandler },
  { methods: READ_WRITE, pattern: '/_logstash/*', handler: esProbeHandler },
  { methods: READ_WRITE, pattern: '/_alias/*', handler: esProbeHandler },
  { methods: READ_WRITE, pattern: '/_data_stream/*', handler: esDataStreamHandler },
  { methods: ['GET', 'POST'], pattern: '/_refresh', handler: esRefreshHandler },
  { methods: ['GET', 'POST'], pattern: '/:index/_refresh', handler: esRefreshHandler },
];

/** The ES companion routes at the host root and under `/insert/elasticsearch` (DESIGN §5 path word). */
export const ELASTICSEARCH_COMPANION_ROUTES: readonly CompanionRoute[] = [
  ...ROUTES,
  ...ROUTES.map((r) => ({ ...r, pattern: r.pattern === '/' ? '/insert/elasticsearch' : `/insert/elasticsearch${r.pattern}` })),
];
