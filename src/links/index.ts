export { accessLink, isUuid, type Capability, type GrantedLink, type LinkAccess, type LinkLookup } from './access.js';
export type { DeleteUserOptions, LinkAction, UserDeletion } from './accounts.js';
export { actorViewer, asSystem, asUser, type Actor, type Surface } from './actor.js';
export { LinkEventBus, type LinkEvent, type LinkEventKind, type LinkEventListener } from './events.js';
export { createLinkService, type LinkServiceOptions } from './factory.js';
export {
  HISTORY_KINDS,
  historyRecorder,
  isHistoryKind,
  MEMBER_KINDS,
  VERSION_KINDS,
  type AuditFilter,
  type FieldChange,
  type HistoryEvent,
  type HistoryKind,
  type HistoryPage,
  type HistoryPageRequest,
  type HistoryPerson,
} from './history.js';
export * from './groupResource.js';
export type { GroupDetails, GroupInput, SignInGroupChanges } from './groups.js';
export * from './historyResource.js';
export type { ImportAction, ImportOptions, ImportOutcome } from './importer.js';
export type { ImportInput, ImportRequest, ImportRow, ImportRun, ImportSummary } from './importRun.js';
export { exportLines, fullLinkResource, linkResources, toExportLine } from './reads.js';
export * from './resource.js';
export { KeywordService } from './keywords.js';
export { LinkService } from './service.js';
export { UserService, type NewAccount } from './users.js';
export { linkVersion, viewVersion } from './version.js';
export type { NewLink } from './writes.js';
