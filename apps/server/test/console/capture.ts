/**
 * Screenshots of the console's main screens (docs/console/*.png) and the numbers of docs/performance.md
 * (first-load JavaScript, opening a 1 MiB file and a 10 000-file folder), measured once against the
 * built server on SQLite in headless Chromium. Not a test: run it by hand, `npm run console:capture`
 * (`-- --shots-only` for the screenshots alone).
 */
import { mkdir } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { createRuntime } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';
import { REPO_ROOT } from '../ops/support.js';
import { launchChromium, startConsoleServer, uploadForm } from './support.js';

declare const document: {
  documentElement: { scrollWidth: number };
  querySelectorAll(selector: string): Iterable<{ naturalWidth: number }>;
};
declare const window: { __longest: number };
declare class PerformanceObserver {
  constructor(callback: (list: { getEntries(): { duration: number }[] }) => void);
  observe(options: { type: string; buffered: boolean }): void;
}

const SHOTS = path.join(REPO_ROOT, 'docs/console');
const server = await startConsoleServer();
const browser = await launchChromium();
const api = server.api;
const project = server.projectId;
const file = (name: string) => `/api/projects/${project}/files/${encodeURIComponent(name)}`;
const put = (name: string, text: string) =>
  api(`${file(name)}/content`, { method: 'PUT', headers: { 'Content-Type': 'text/markdown' }, body: text });

async function* bytes(text: string) {
  yield new TextEncoder().encode(text);
}

function rawBytes(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve(bytes));
    })
      .on('error', reject)
      .end();
  });
}

/** CRC-32 of PNG chunks. */
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A small PNG of a colour gradient (an attachment to show), made here: no image file in the repository. */
function gradientPng(width: number, height: number, tint: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const at = y * (1 + width * 3);
    for (let x = 0; x < width; x++) {
      const mix = (x + y) / (width + height);
      for (let c = 0; c < 3; c++) rows[at + 1 + x * 3 + c] = Math.round(255 - (255 - tint[c]!) * mix);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function putAttachment(path: string, body: Buffer, type: string): Promise<void> {
  const answer = await api(`/api/projects/${project}/attachments/${encodeURIComponent(path)}`, {
    method: 'PUT',
    headers: { 'Content-Type': type },
    body,
  });
  if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
}

async function upload(name: string, text: string): Promise<void> {
  const answer = await api(`/api/projects/${project}/files`, {
    method: 'POST',
    body: uploadForm(name, text),
  });
  if (answer.status !== 201) throw new Error(`${name}: ${answer.status} ${await answer.text()}`);
}

/** Milliseconds from a hash navigation until `ready` resolves, and the longest task meanwhile. */
async function timed(page: Page, hash: string, ready: () => Promise<unknown>) {
  await page.evaluate(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
    }).observe({ type: 'longtask', buffered: false });
  });
  const start = Date.now();
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  await ready();
  const ms = Date.now() - start;
  const longest = await page.evaluate(() => window.__longest);
  return { ms, longest: Math.round(longest) };
}

try {
  await mkdir(SHOTS, { recursive: true });
  await api(`/api/projects/${project}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ description: 'Team handbook', settings: { trash_retention_days: 30 } }),
  });
  await putAttachment('handbook/team.png', gradientPng(240, 120, [9, 105, 218]), 'image/png');
  await putAttachment('handbook/office-map.png', gradientPng(160, 120, [26, 127, 55]), 'image/png');
  await putAttachment('handbook/policies.pdf', Buffer.from('%PDF-1.4\n%%EOF\n'), 'application/pdf');
  await upload(
    'handbook/onboarding.md',
    `---\ntitle: Onboarding\nowner: people-team\n---\n# Onboarding\n\nWelcome! Start with the [setup guide](setup.md).\n\n![The team](team.png)\n\n## First week\n\n- Meet your *buddy*\n- Read the **handbook**\n\n## Tools\n\n| Tool | Why |\n| --- | --- |\n| mdstore | notes |\n\n\`\`\`sh\nnpm start\n\`\`\`\n`,
  );
  await upload('handbook/setup.md', '# Setup\n\nInstall the tools, then sign in.\n');
  await upload('readme.md', '# Readme\n\nThe handbook lives in `handbook/`.\n');
  await upload('old-notes.md', '# Old notes\n');
  await api(file('old-notes.md'), { method: 'DELETE' });
  await put(
    'handbook/setup.md',
    '# Setup\n\nInstall the tools, then sign in with your key.\n\n## Help\n\nAsk in #help.\n',
  );

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const main = () => page.getByRole('main');
  const shot = (name: string, fullPage = false) =>
    page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });

  await page.goto(`${server.url}/`);
  await page.getByLabel('API key').waitFor();
  await shot('sign-in');
  await page.getByLabel('API key').fill(server.apiKey);
  await page.keyboard.press('Enter');
  await main().getByRole('row').nth(1).waitFor();
  await shot('projects');
  await page.goto(`${server.url}/#/p/${project}?dir=handbook%2F`);
  await page
    .getByRole('navigation', { name: 'Folders' })
    .getByRole('link', { name: 'onboarding.md' })
    .click();
  await main().getByRole('heading', { name: 'First week' }).waitFor();
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.rendered img')].every((img) => img.naturalWidth > 0),
  );
  await shot('file');
  await main().getByRole('button', { name: 'Edit' }).click();
  await main().getByRole('textbox').waitFor();
  await main().getByRole('region', { name: 'Preview' }).getByRole('img').waitFor();
  await shot('editor');
  await main().getByRole('textbox').press('Control+End');
  await page.keyboard.type('\n## Office\n\n![[handbook/office-map.png]]\n\nMy addition.');
  // The live preview: the unsaved text rendered by the server after a pause.
  const preview = main().getByRole('region', { name: 'Preview' });
  await preview.getByRole('heading', { name: 'Office' }).waitFor();
  await preview.getByRole('img', { name: 'handbook/office-map.png' }).waitFor();
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.preview img')].every((img) => img.naturalWidth > 0),
  );
  await preview.evaluate((element) => {
    const scrolled = element as unknown as { scrollTop: number; scrollHeight: number };
    scrolled.scrollTop = scrolled.scrollHeight;
  });
  await shot('live-preview');
  await put('handbook/onboarding.md', '# Onboarding\n\nRewritten by someone else.\n');
  await main().getByRole('button', { name: 'Save' }).click();
  await main().getByRole('heading', { name: 'Conflict: the other change' }).scrollIntoViewIfNeeded();
  await shot('conflict');
  await main().getByRole('button', { name: 'Reload' }).click();
  // The attachments panel of a folder: images previewed, others downloaded.
  await page.goto(`${server.url}/#/p/${project}?dir=handbook%2F`);
  const attachments = main().getByRole('region', { name: 'Attachments' });
  await attachments.getByRole('button', { name: 'Download policies.pdf' }).waitFor();
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.attachments img')].every((img) => img.naturalWidth > 0),
  );
  await attachments.scrollIntoViewIfNeeded();
  await attachments.screenshot({ path: path.join(SHOTS, 'attachments.png') });
  await page.goto(`${server.url}/#/p/${project}/f/${encodeURIComponent('handbook/setup.md')}`);
  await main().getByRole('button', { name: 'History' }).click();
  await main().getByRole('button', { name: 'Show diff' }).click();
  await main()
    .getByRole('region', { name: /Changes from revision/ })
    .waitFor();
  await shot('history');
  await page.goto(`${server.url}/#/p/${project}/search?q=handbook`);
  await main().locator('mark').first().waitFor();
  await shot('search');
  await page.goto(`${server.url}/#/p/${project}/trash`);
  await main().getByRole('button', { name: 'Restore old-notes.md' }).waitFor();
  await shot('trash');
  // A draft (extensions §13): its review (the guide changed since: stale), then a refused publish.
  const draft = async (title: string, operations: unknown[]) => {
    const answer = await api(`/api/projects/${project}/drafts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ title, description: 'Proposed by the onboarding agent.', operations }),
    });
    if (answer.status !== 201) throw new Error(`${title}: ${answer.status} ${await answer.text()}`);
    return ((await answer.json()) as { id: string }).id;
  };
  const review = await draft('Add a first-day checklist', [
    {
      op: 'put',
      filename: 'handbook/setup.md',
      content:
        '# Setup\n\nInstall the tools, then sign in with your key.\n\n## Help\n\nAsk in #help.\n\n## First day\n\n- Get your key\n',
    },
    { op: 'put', filename: 'handbook/checklist.md', content: '# Checklist\n\n- [ ] Laptop\n- [ ] Key\n' },
  ]);
  await put(
    'handbook/setup.md',
    '# Setup\n\nInstall the tools, then sign in with your own key.\n\n## Help\n\nAsk in #help.\n',
  );
  await page.goto(`${server.url}/#/p/${project}/drafts/${review}`);
  await main().getByRole('region', { name: 'Changes to handbook/checklist.md' }).waitFor();
  await main().getByLabel('Review comment').fill('Good list.');
  await main().getByRole('button', { name: 'Approve' }).click();
  await main().getByRole('region', { name: 'Reviews' }).getByText('Good list.').waitFor();
  await shot('draft-review', true);
  await main().getByRole('button', { name: 'Publish' }).click();
  await main()
    .getByRole('region', { name: 'Published' })
    .getByRole('link', { name: 'handbook/checklist.md' })
    .waitFor();
  await main().getByRole('heading', { name: 'handbook/checklist.md (written)' }).waitFor();
  await shot('draft-published', true);
  const clash = await draft('Point help to the forum', [
    {
      op: 'put',
      filename: 'handbook/setup.md',
      content:
        '# Setup\n\nInstall the tools, then sign in with your own key.\n\n## Help\n\nAsk in the forum.\n\n## First day\n\n- Get your key\n',
    },
  ]);
  await put(
    'handbook/setup.md',
    '# Setup\n\nInstall the tools, then sign in with your own key.\n\n## Help\n\nAsk in #support.\n\n## First day\n\n- Get your key\n',
  );
  await page.goto(`${server.url}/#/p/${project}/drafts/${clash}`);
  await main().getByRole('button', { name: 'Publish' }).click();
  await main().getByRole('region', { name: 'Conflicts' }).waitFor();
  await shot('draft-conflicts', true);
  await page.goto(`${server.url}/#/p/${project}/drafts`);
  await main().getByRole('link', { name: 'Point help to the forum' }).waitFor();
  await shot('drafts');
  await page.setViewportSize({ width: 375, height: 760 });
  await page.goto(`${server.url}/#/p/${project}/f/${encodeURIComponent('handbook/setup.md')}`);
  await main().getByRole('heading', { name: 'Help' }).waitFor();
  await shot('phone');
  await page.setViewportSize({ width: 1280, height: 800 });

  if (!process.argv.includes('--shots-only')) await measure(page);
} finally {
  await browser.close();
  await server.stop();
}

/** The numbers of docs/performance.md, printed as JSON. */
async function measure(page: Page): Promise<void> {
  const main = () => page.getByRole('main');
  // Numbers. First load: the scripts of the page, as sent with brotli.
  const html = await (await fetch(`${server.url}/`)).text();
  let firstLoad = 0;
  for (const [, src] of html.matchAll(/<script[^>]*src="([^"]+)"/g)) {
    firstLoad += await rawBytes(`${server.url}${src}`, { 'Accept-Encoding': 'br' });
  }
  // A 1 MiB file: opened (rendered, details), then its editor.
  const paragraph = 'A line of ordinary prose with **some emphasis** and a [link](readme.md).\n\n';
  let big = '# Big file\n\n';
  for (let i = 0; big.length < 1024 * 1024 - 200; i++)
    big += i % 50 === 0 ? `## Part ${i / 50}\n\n` : paragraph;
  await upload('big.md', big);
  await page.goto(`${server.url}/#/p/${project}`);
  await main().getByRole('heading').first().waitFor();
  const open = await timed(page, `#/p/${project}/f/big.md`, () =>
    main().getByRole('button', { name: 'Edit', disabled: false }).waitFor({ timeout: 60_000 }),
  );
  const editStart = Date.now();
  await main().getByRole('button', { name: 'Edit' }).click();
  await main().getByRole('textbox').waitFor({ timeout: 60_000 });
  const edit = Date.now() - editStart;
  await main().getByRole('button', { name: 'Cancel' }).click();
  // A folder of 10 000 files, written through the store beside the server (10 000 uploads over HTTP
  // would pass the key's hourly rate limit).
  const runtime = await createRuntime(loadConfig({ MDSTORE_DATA_DIR: server.dataDir }), {
    logger: silentLogger,
  });
  try {
    const principal = await runtime.store.authenticate({ apiKey: server.apiKey });
    for (let i = 0; i < 10_000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => {
          const filename = `many/file-${String(i + j).padStart(5, '0')}.md`;
          return runtime.store.files.upload({
            principal,
            projectId: project,
            filename,
            content: bytes(`# ${filename}\n`),
          });
        }),
      );
    }
  } finally {
    await runtime.close();
  }
  await page.goto(`${server.url}/#/p/${project}`);
  await main().getByRole('heading').first().waitFor();
  const folder = await timed(page, `#/p/${project}?dir=many%2F`, () =>
    page
      .getByRole('navigation', { name: 'Folders' })
      .getByRole('link', { name: 'file-00099.md' })
      .waitFor({ timeout: 60_000 }),
  );
  const nextStart = Date.now();
  await page.getByRole('button', { name: 'Next page' }).click();
  await page
    .getByRole('navigation', { name: 'Folders' })
    .getByRole('link', { name: 'file-00199.md' })
    .waitFor();
  const next = Date.now() - nextStart;
  const filtered = await timed(page, `#/p/${project}?dir=many%2F`, async () => {
    await page.getByLabel('Filter by name').fill('09999');
    await page
      .getByRole('navigation', { name: 'Folders' })
      .getByRole('link', { name: 'file-09999.md' })
      .waitFor();
  });
  console.log(
    JSON.stringify(
      {
        firstLoadBrotliBytes: firstLoad,
        open1MiB: open,
        openEditor1MiBMs: edit,
        open10kFolder: folder,
        nextPageMs: next,
        filterMs: filtered.ms,
      },
      null,
      2,
    ),
  );
}
