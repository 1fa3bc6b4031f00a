// The wire types of the nodedesk API, named for the page. Every shape comes
// from api/openapi.json through the generated openapi.d.ts (npm run gen;
// npm run check fails when it is stale), so a change of the contract that
// the page does not follow fails to type-check. Only the page's own types
// (live events) are written here.

import type { components, paths } from './openapi';

type S = components['schemas'];

export type UUID = S['UUID'];
export type NodeType = S['NodeType'];
export type NodeStatus = S['NodeStatus'];
export type ConsoleType = S['ConsoleType'];
export type DynamipsPlatformInfo = S['DynamipsPlatformInfo'];
export type DynamipsChassisInfo = S['DynamipsChassisInfo'];
export type Project = S['Project'];
export type ProjectCreate = S['ProjectCreate'];
export type ProjectUpdate = S['ProjectUpdate'];
/** "Save as": the copy's name, and whether its nodes get new MAC addresses. */
export type ProjectDuplicate = S['ProjectDuplicate'];
export type Snapshot = S['Snapshot'];
export type Label = S['Label'];
export type Port = S['Port'];
export type LinkType = Port['link_type'];
export type CustomAdapter = S['CustomAdapter'];
export type EthernetSwitchPort = S['EthernetSwitchPort'];
export type SwitchPortType = EthernetSwitchPort['type'];
export type Ethertype = Exclude<EthernetSwitchPort['ethertype'], undefined>;
export type EthernetHubPort = S['EthernetHubPort'];
export type HostInterface = S['HostInterface'];
export type CloudPort = S['CloudPort'];
/** Frame Relay circuits: "port:dlci" → "port:dlci". */
export type FrameRelayMappings = S['FrameRelayMappings'];
/** ATM connections: "port:vpi:vci" → "port:vpi:vci" or "port:vpi" → "port:vpi". */
export type ATMMappings = S['ATMMappings'];
export type NodeUpdate = S['NodeUpdate'];
export type NodeCreate = S['NodeCreate'];
export type Link = S['Link'];
export type LinkEnd = S['LinkEnd'];
export type LinkCreate = S['LinkCreate'];
export type LinkUpdate = S['LinkUpdate'];
/** A filter a link can take, as GET …/available_filters describes it. */
export type LinkFilter = S['LinkFilter'];
export type LinkCaptureStart = S['LinkCaptureStart'];
/** A capture format: DLT_EN10MB, DLT_FRELAY… */
export type DataLinkType = NonNullable<LinkCaptureStart['data_link_type']>;
export type Drawing = S['Drawing'];
export type DrawingCreate = S['DrawingCreate'];
export type DrawingUpdate = S['DrawingUpdate'];
/** A drawing as drawing.* events carry it: drawing.updated leaves out svg when it did not change. */
export type DrawingEvent = Omit<Drawing, 'svg'> & { svg?: string };
export type Template = S['Template'];
export type TemplateNodeCreate = S['TemplateNodeCreate'];
export type TemplateCreate = S['TemplateCreate'];
export type TemplateUpdate = S['TemplateUpdate'];
export type NodeDuplicate = S['NodeDuplicate'];
/** One change of a project's history, and through which door it came. */
export type HistoryEntry = S['HistoryEntry'];
export type HistoryOrigin = HistoryEntry['origin'];
/** history.updated: what undo and redo would take now. */
export type HistoryState = S['HistoryState'];
/** A project's checks file (checks.json), a check of it and its kind (decision 0070). */
export type CheckFile = S['CheckFile'];
export type Check = S['Check'];
export type CheckKind = Check['kind'];
/** What a run checks: ids (none: all), or connectivity. */
export type CheckRunRequest = S['CheckRunRequest'];
/** One run of the checks, as it goes and once done (check.run.updated). */
export type CheckRun = S['CheckRun'];
export type CheckResult = S['CheckResult'];
export type Verdict = CheckResult['verdict'];
export type Evidence = S['Evidence'];
export type Matrix = S['Matrix'];
export type SeenFrame = S['SeenFrame'];
export type WireEnd = S['WireEnd'];
/** What lint found in a project, and one finding. */
export type LintReport = S['LintReport'];
export type LintFinding = S['LintFinding'];
/** The wire map: per link the addresses seen, and the wire's faults. */
export type WireMap = S['WireMap'];
export type WireFault = S['WireFault'];
/** A compute server: "local" (nodedesk itself) or a remote one. */
export type Compute = S['Compute'];
export type ComputeCreate = S['ComputeCreate'];
export type ComputeUpdate = S['ComputeUpdate'];
/** What differs between node types, as GET /v2/node_types says. */
export type NodeTypeInfo = S['NodeTypeInfo'];
/** An image file of an images folder, as GNS3 2.2 lists them. */
export type Image = S['Image'];
/** A local image of a compute's Docker Engine (GET …/docker/images). */
export type DockerImage = S['DockerImage'];
/** How a compute runs QEMU guests: KVM or TCG, and a note when slower. */
export type QEMUCapabilities = S['QEMUCapabilities'];
/** A GNS3 appliance file's JSON (.gns3a), as POST /v2/appliances/import takes it. */
export type ApplianceFile = S['ApplianceFile'];
/** What importing an appliance made, and the images it still needs. */
export type ApplianceImport = S['ApplianceImport'];
/** An image an imported appliance needs that the images folders lack. */
export type MissingImage = S['MissingImage'];
/** The body of every error answer. */
export type ErrorBody = S['Error'];
export type ErrorCode = ErrorBody['code'];

/** A controller node's properties: free-form in the contract, made of the
 * keys of its type's component (VPCSProperties, EthernetSwitchProperties…). */
export type NodeProperties = Partial<
  S['VPCSProperties'] & S['FrameRelaySwitchProperties'] & Omit<S['CloudProperties'], 'ports_mapping'>
> & {
  ports_mapping?: EthernetSwitchPort[] | EthernetHubPort[] | CloudPort[];
} & Record<string, unknown>;

/** A node as the controller answers it, its properties typed as above. */
export type Node = Omit<S['Node'], 'properties'> & { properties: NodeProperties };

/** The lifecycle actions: the contract's /v2/projects/{project_id}/nodes/<action>
 * (one segment: console/reset is not a lifecycle action). */
export type NodeAction = ProjectNodesAction<keyof paths>;
type ProjectNodesAction<P> = P extends `/v2/projects/{project_id}/nodes/${infer A}`
  ? A extends `{${string}` | `${string}/${string}` ? never : A
  : never;

/** allOf lists every value of T, in the order given: it fails to compile
 * when the list misses a value of T or has one T lacks. */
export const allOf =
  <T>() =>
  <const A extends readonly T[]>(values: A & ([T] extends [A[number]] ? unknown : never)): A =>
    values;

/** The contract's switch port ethertypes, null (none) first. */
export const ETHERTYPES = allOf<Ethertype>()([null, '0x8100', '0x88A8', '0x9100', '0x9200']);
/** The contract's switch port types. */
export const SWITCH_PORT_TYPES = allOf<SwitchPortType>()(['access', 'dot1q', 'qinq']);
/** The contract's error codes. */
export const ERROR_CODES = allOf<ErrorCode>()([
  'invalid', 'unauthorized', 'forbidden', 'not_found', 'method_not_allowed', 'conflict', 'internal',
]);
/** One message of a notification stream, as the app sees it. */
export type LiveEvent =
  | { action: 'node.created' | 'node.updated' | 'node.deleted'; event: Node }
  | { action: 'link.created' | 'link.updated' | 'link.deleted'; event: Link }
  | { action: 'drawing.created' | 'drawing.updated' | 'drawing.deleted'; event: DrawingEvent }
  | { action: 'project.created' | 'project.updated' | 'project.deleted' | 'project.opened' | 'project.closed'; event: Project }
  | { action: 'history.updated'; event: HistoryState }
  /** A run of the project's checks moved on: the whole run, after each verdict. */
  | { action: 'check.run.updated'; event: CheckRun }
  | { action: 'compute.created' | 'compute.updated' | 'compute.deleted'; event: Compute }
  /** A user template made, changed or removed, by this page or any other client (the GNS3 GUI's wizard). */
  | { action: 'template.created' | 'template.updated' | 'template.deleted'; event: Template }
  /** A remote compute's message about the project (GNS3's log.*), e.g. a VPCS that stopped by itself there. */
  | { action: 'log.error' | 'log.warning' | 'log.info'; event: { message: string; detail?: string } }
  /** Events may have been missed (a reconnect, or a lagging subscriber): reload. */
  | { action: 'resync' };

export type LiveAction = LiveEvent['action'];

/** Whether a subscription is delivering events. */
export type LiveState = 'live' | 'reconnecting';
