/**
 * Private helpers shared by the workspace's tests. Not published.
 *
 * @packageDocumentation
 */
export {
  type AdapterCase,
  type AdapterRunner,
  coreOutcome,
  describeAdapters,
  fromSupertest,
  type Outcome,
} from './adapters.js';
export {
  ContractValidator,
  describeViolations,
  type Exchange,
  recordExchanges,
  UNCHECKED_HEADERS,
} from './contract.js';
export { EXPRESS_VERSIONS } from './express-apps.js';
export {
  type ExpressFactory,
  FRAMEWORKS,
  type Framework,
  type FrameworkApps,
  frameworkRunners,
  frameworkSenders,
} from './frameworks.js';
export {
  type HttpRequestSpec,
  listen,
  type RawExchange,
  type RunningServer,
  rawExchange,
  send,
} from './http.js';
export { frameworkPeerProblems, type ManifestDependencies, nodeOnlyUses } from './portability.js';
export { cleanReadmeExamples, readmeBlock, readmeFrameworkExamples, runReadmeExample } from './readme.js';
export {
  type ClusterNode,
  type LocalRedisCluster,
  type RedisClusterOptions,
  startRedisCluster,
} from './redis-cluster.js';
export { DATABASE_URL, postgresAvailable, REDIS_URL, redisAvailable, uniquePrefix } from './services.js';
export { XmlReader } from './xml-read.js';
