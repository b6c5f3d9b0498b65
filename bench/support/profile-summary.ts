// Summarises a V8 .cpuprofile (from `npm run bench -- --profile`): where the server's CPU time went, by
// area (package, server folder, Node internals) and by function, self and inclusive.
// Usage: node --import tsx bench/support/profile-summary.ts FILE.cpuprofile [--top N]
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: profile-summary.ts FILE.cpuprofile [--top N]\n');
  process.exit(1);
}
// Piping into `head` closes stdout early: not an error.
process.stdout.on('error', () => process.exit(0));
const topIndex = process.argv.indexOf('--top');
const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 25;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

/** The package, server folder or runtime part a script belongs to. */
function area(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url.split('/')[0]!;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1]!;
  const workspace = /\/packages\/([^/]+)\//.exec(url);
  if (workspace) return `@mdstore/${workspace[1]}`;
  const server = /\/apps\/server\/(?:src|dist)\/([^/]+)/.exec(url);
  if (server) return `server/${server[1]!.replace(/\.ts$/, '')}`;
  return url;
}

function label(frame: CallFrame): string {
  const where = frame.url.replace(/^.*\/(node_modules|packages|apps)\//, '$1/').replace(/^file:\/\//, '');
  // Code run through tsx keeps few line breaks: the column tells functions of one file apart.
  const position = `${frame.lineNumber + 1}:${frame.columnNumber + 1}`;
  return `${frame.functionName || '(anonymous)'} ${where ? `${where}:${position}` : ''}`.trim();
}

const selfByFunction = new Map<string, number>();
const totalByFunction = new Map<string, number>();
const selfByArea = new Map<string, number>();
let busy = 0;
let idle = 0;
const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);

profile.samples.forEach((id, index) => {
  const ms = (profile.timeDeltas[index] ?? 0) / 1000;
  const node = byId.get(id);
  if (!node) return;
  if (node.callFrame.functionName === '(idle)') {
    idle += ms;
    return;
  }
  busy += ms;
  add(selfByFunction, label(node.callFrame), ms);
  add(selfByArea, area(node.callFrame), ms);
  const seen = new Set<string>();
  for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
    const frame = byId.get(current)!.callFrame;
    const name = label(frame);
    if (frame.functionName === '(root)' || seen.has(name)) continue;
    seen.add(name);
    add(totalByFunction, name, ms);
  }
});

const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  const rows = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, ms] of rows) {
    process.stdout.write(
      `${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${name}\n`,
    );
  }
};

process.stdout.write(`busy ${busy.toFixed(0)} ms, idle ${idle.toFixed(0)} ms\n`);
print('self time by area', selfByArea);
print('self time by function', selfByFunction);
print('inclusive time by function', totalByFunction);
