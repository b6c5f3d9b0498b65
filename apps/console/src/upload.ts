import { errorText, sdk } from './api';

export interface PendingFile {
  readonly file: File;
  /** The path below the folder the files were dropped in (`notes/a.md` for a dropped folder). */
  readonly path: string;
}

type Entry = FileSystemEntry;

function readAll(reader: FileSystemDirectoryReader): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const all: Entry[] = [];
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

async function walk(entry: Entry, out: PendingFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) =>
      (entry as FileSystemFileEntry).file(resolve, reject),
    );
    out.push({ file, path: entry.fullPath.replace(/^\//, '') });
  } else if (entry.isDirectory) {
    for (const child of await readAll((entry as FileSystemDirectoryEntry).createReader()))
      await walk(child, out);
  }
}

/** The files of a drop, folders walked (their paths kept); without entries, the plain file list. */
export async function droppedFiles(data: DataTransfer): Promise<PendingFile[]> {
  const entries = [...data.items]
    .map((item) => (item.kind === 'file' ? item.webkitGetAsEntry() : null))
    .filter((entry): entry is Entry => entry !== null);
  if (entries.length === 0)
    return [...data.files].map((file) => ({ file, path: file.webkitRelativePath || file.name }));
  const out: PendingFile[] = [];
  for (const entry of entries) await walk(entry, out);
  return out;
}

export interface UploadResult {
  readonly uploaded: string[];
  readonly failed: { name: string; detail: string }[];
}

/** Uploads Markdown files one after the other into `dir`; other files are reported, not sent. */
export async function uploadAll(projectId: string, dir: string, files: PendingFile[]): Promise<UploadResult> {
  const result: UploadResult = { uploaded: [], failed: [] };
  for (const { file, path } of files) {
    const name = dir + path;
    if (!/\.mdx?$/i.test(name)) {
      result.failed.push({ name, detail: 'Only .md and .mdx files are stored' });
      continue;
    }
    try {
      await sdk().files.upload(projectId, name, file);
      result.uploaded.push(name);
    } catch (caught) {
      result.failed.push({ name, detail: errorText(caught) });
    }
  }
  return result;
}
