import { describe, expect, it } from 'vitest';
import { linksTask } from '../links/work.js';
import { headingsTask, outlineTask, renderTask } from '../markdown/content-work.js';
import { mdxWithinBudget } from '../markdown/mdx-budget.js';
import type { ContentWork, ContentWorkTask } from '../ports/content-work.js';

export interface ContentWorkHarness {
  readonly work: ContentWork;
  close(): Promise<void>;
}

const prose = (paragraphs: number) =>
  Array.from(
    { length: paragraphs },
    (_, index) =>
      `${index % 20 === 0 ? `## Part ${index}\n\n` : ''}Some *prose* with a [link](t${index}.md).\n\n`,
  ).join('');

/** An MDX comment holding a line that is a heading only when the file is read as CommonMark. */
const mdxPage = (fill: number) =>
  `# Page\n\n{/*\n# inside\n*/}\n\n${'Words of plain prose here. '.repeat(fill)}\n\n## End\n`;

/**
 * The texts every `ContentWork` is run on: small and large CommonMark, MDX under and above the inline
 * MDX limits, heading-dense text beyond every bound.
 */
const TASKS: Array<{ name: string; task: ContentWorkTask }> = [
  { name: 'a small CommonMark file', task: { text: '# A\n\ntext [x](y)\n\n## B\n\nmore\n', mdx: false } },
  { name: 'a small MDX file', task: { text: mdxPage(10), mdx: true } },
  { name: 'an MDX file of 100 KiB', task: { text: mdxPage(3_800), mdx: true } },
  { name: 'prose of 1.5 MiB', task: { text: prose(36_000), mdx: false } },
  { name: 'headings beyond every bound', task: { text: '## h\n'.repeat(700_000), mdx: false } },
];

/** What the core's pure function gives for `limits`, or the code it refuses with. */
function expected<T>(run: () => T): { value: T } | { code: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { code: (error as { code: string }).code };
  }
}

async function answer<T>(run: () => Promise<T>): Promise<{ value: T } | { code: string }> {
  try {
    return { value: await run() };
  } catch (error) {
    return { code: (error as { code: string }).code };
  }
}

/**
 * The behaviour every `ContentWork` shares: it answers what the core's pure functions answer with its
 * `limits` (the same outline and headings, MDX read as MDX within its MDX limits), and refuses with
 * `WORK_LIMIT_EXCEEDED` where they do.
 */
export function describeContentWorkContract(name: string, open: () => Promise<ContentWorkHarness>): void {
  describe(`ContentWork contract: ${name}`, () => {
    for (const { name: what, task } of TASKS) {
      it(`outline and headings of ${what} are the pure functions' for its limits`, async () => {
        const harness = await open();
        try {
          const { work } = harness;
          const outline = await answer(() => work.outline(task));
          expect(outline).toEqual(expected(() => outlineTask(task, work.limits)));
          const headings = await answer(() => work.headings(task));
          expect(headings).toEqual(expected(() => headingsTask(task, work.limits)));
          // Extensions §9: the links for the link index, where the implementation offers them.
          if (work.links) {
            const links = await answer(() => work.links!(task));
            expect(links).toEqual(expected(() => linksTask(task, work.limits)));
          }
        } finally {
          await harness.close();
        }
      }, 60_000);
    }

    it('renders as renderHtml does for its limits, and refuses past them', async () => {
      const harness = await open();
      try {
        const { work } = harness;
        const links = { kind: 'console', projectId: 'p1' } as const;
        for (const { task } of TASKS.slice(0, 4)) {
          const render = { ...task, filename: 'docs/page.md', links };
          expect(await answer(() => work.render(render))).toEqual(
            expected(() => renderTask(render, work.limits)),
          );
        }
        const html = await work.render({
          text: '# A\n\n[b](b.md)',
          mdx: false,
          filename: 'x/a.md',
          links,
        });
        expect(html).toBe('<h1 id="a">A</h1>\n<p><a href="/#/p/p1/f/x/b.md">b</a></p>\n');
        // Wiki links' targets resolved beforehand travel with the task.
        const wiki = await work.render({
          text: '![[a.png]] [[B]]',
          mdx: false,
          filename: 'x/a.md',
          links,
          targets: [
            ['a.png', { kind: 'attachment', path: 'img/a.png', image: true }],
            ['B', { kind: 'broken', reason: 'missing' }],
          ],
        });
        expect(wiki).toBe(
          '<p><img alt="a.png" src="/api/projects/p1/attachments/img%2Fa.png" /> ' +
            '<span class="broken-link">B</span></p>\n',
        );
        const beyond = { ...TASKS.at(-1)!.task, filename: 'a.md', links };
        await expect(work.render(beyond)).rejects.toMatchObject({ code: 'WORK_LIMIT_EXCEEDED' });
      } finally {
        await harness.close();
      }
    }, 60_000);

    it('refuses past its limits with WORK_LIMIT_EXCEEDED', async () => {
      const harness = await open();
      try {
        const task = TASKS.at(-1)!.task;
        await expect(harness.work.headings(task)).rejects.toMatchObject({ code: 'WORK_LIMIT_EXCEEDED' });
        await expect(harness.work.outline(task)).rejects.toMatchObject({ code: 'WORK_LIMIT_EXCEEDED' });
      } finally {
        await harness.close();
      }
    }, 60_000);

    it('reads MDX as MDX within its MDX limits: a JSX line is no heading', async () => {
      const harness = await open();
      try {
        const { work } = harness;
        const small = await work.headings({ text: mdxPage(10), mdx: true });
        expect(small.map((heading) => heading.text)).toEqual(['Page', 'End']);
        const large = { text: mdxPage(3_800), mdx: true };
        const texts = (await work.headings(large)).map((heading) => heading.text);
        const asMdx = mdxWithinBudget(large.text, work.limits.mdx);
        expect(texts).toEqual(asMdx ? ['Page', 'End'] : ['Page', 'inside', 'End']);
      } finally {
        await harness.close();
      }
    }, 60_000);
  });
}
