// Project files as the page meets them: which files it opens (a file
// picker's filter, a drop), the names it gives them, GNS3's export
// options, and the names it proposes for copies and snapshots. What a file
// holds, and whether it can be imported, is the server's to say.

/** GNS3's two kinds of project file: the project file (.gns3, JSON) and
 * the portable project (.gns3project, a zip; GNS3 also writes .gns3p). */
export type ProjectFileKind = 'project' | 'portable';

const KINDS: Record<string, ProjectFileKind> = { '.gns3': 'project', '.gns3project': 'portable', '.gns3p': 'portable' };

/** What a file input accepts. */
export const PROJECT_FILE_ACCEPT = Object.keys(KINDS).join(',');

/** The sentence for a file that is no project file. */
export const notAProject = (fileName: string) =>
  `${fileName} is not a GNS3 project: open a .gns3 project file or a .gns3project portable project`;

const extension = (name: string) => /\.[^./\\]*$/.exec(name)?.[0].toLowerCase() ?? '';
/** baseName is a path's last part ("labs/a.gns3" → "a.gns3"). */
export const baseName = (path: string) => path.split(/[/\\]/).pop() ?? path;

/** projectFileKind says which kind of project file a name is, or null. */
export function projectFileKind(name: string): ProjectFileKind | null {
  return KINDS[extension(name)] ?? null;
}

/** projectNameOf is the name of the project a file becomes: its base name
 * without the extension ("labs/ospf lab.gns3project" → "ospf lab"). */
export function projectNameOf(fileName: string): string {
  const base = baseName(fileName);
  const ext = extension(base);
  return (ext ? base.slice(0, -ext.length) : base) || base;
}

/** firstProjectFile picks the project file among files dropped or picked
 * (the first one), and says how many others were left. */
export function firstProjectFile<T extends { name: string }>(files: readonly T[]): { file: T | null; others: number } {
  const file = files.find((f) => projectFileKind(f.name) !== null) ?? null;
  return { file, others: file ? files.length - 1 : files.length };
}

/** The file name an exported project is given: "<name>.gns3project",
 * without path separators. */
export function exportFileName(projectName: string): string {
  const safe = projectName.trim().replace(/[/\\\0]/g, '-');
  return `${safe && safe !== '.' && safe !== '..' ? safe : 'project'}.gns3project`;
}

/** GNS3's choices for an exported project. */
export interface ExportOptions {
  include_snapshots: boolean;
  reset_mac_addresses: boolean;
  /** The image files the nodes name travel in the archive (images/<kind>/). */
  include_images: boolean;
}

type YesNo = 'yes' | 'no';

/** exportQuery spells the options as GNS3's export route reads them. */
export function exportQuery(o: ExportOptions): { include_snapshots: YesNo; reset_mac_addresses: YesNo; include_images: YesNo } {
  const yes = (b: boolean) => (b ? 'yes' : 'no');
  return { include_snapshots: yes(o.include_snapshots), reset_mac_addresses: yes(o.reset_mac_addresses), include_images: yes(o.include_images) };
}

/** newProjectId is a random (version 4) UUID for an imported project;
 * crypto.randomUUID exists only on secure pages, getRandomValues always. */
export function newProjectId(random: (a: Uint8Array) => Uint8Array = (a) => crypto.getRandomValues(a)): string {
  const b = random(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The name proposed for a copy of a project ("Save as"). */
export const copyName = (name: string) => `${name} copy`;

const pad = (n: number) => String(n).padStart(2, '0');

/** The name proposed for a new snapshot: when it is taken, to the minute. */
export function snapshotName(at: Date): string {
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** When a snapshot was taken, from its created_at (seconds since the epoch). */
export const snapshotTime = (createdAt: number) => new Date(createdAt * 1000);
