/**
 * @plumbline/versioning: API versioning by URI path, query parameter, header or media type, one
 * validated version policy, and honest deprecation headers (RFC 9745 `Deprecation`, RFC 8594
 * `Sunset`). Framework-agnostic: no request or response objects here.
 *
 * @packageDocumentation
 */
export {
  type ChangeDescription,
  type ChangeKind,
  type ChangelogEntry,
  type ChangelogOptions,
  type ChangelogWords,
  type ChangeTarget,
  changelog,
  changelogMarkdown,
  type Endpoint,
  type EndpointChangeOptions,
  type EnumValueAddedOptions,
  endpointAdded,
  endpointRemoved,
  enumValueAdded,
  type FieldBecameRequiredOptions,
  type FieldRenamedOptions,
  type FieldShapeChangedOptions,
  fieldBecameRequired,
  fieldRenamed,
  fieldShapeChanged,
  type JsonSchema,
  type Migration,
  type MigrationContext,
  type RoundTripOptions,
  type RoundTripResult,
  roundTrip,
  type VersionChange,
  type VersionChangeDefinition,
  type VersionChanges,
  type VersionDefinition,
  type VersionEntry,
  type VersionLinks,
  versionChange,
  versions,
} from './changes.js';
export {
  createVersionPolicy,
  type DateStrategyOptions,
  formatDeprecation,
  formatHttpDate,
  type HeaderRecord,
  type HeaderStrategyOptions,
  type MediaTypeStrategyOptions,
  type PathStrategyOptions,
  type PinnedVersion,
  type QueryStrategyOptions,
  type VersionPolicy,
  type VersionPolicyOptions,
  type VersionRequest,
  type VersionStrategy,
} from './policy.js';
export { type HeaderBag, MAX_ACCEPT_LENGTH } from './readers.js';
export {
  combineHeader,
  createRequestVersioning,
  type VersioningInput,
  type VersioningOptions,
  type VersioningOutcome,
  versionTable,
} from './request.js';
export {
  type ResolvedVersion,
  resolveVersion,
  type VersionHeadersOptions,
  versionHeaders,
  versionMediaType,
} from './resolve.js';
export { compareVersions, isDateVersion, type ParsedVersion, parseVersion } from './version.js';
