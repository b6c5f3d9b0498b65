/**
 * An agent whose memory lives in mdstore (extensions §14): a tool loop on `@anthropic-ai/sdk` with its
 * memory tool, the handler `memoryTool` of `@mdstore/client` instead of the SDK's local-disk backend
 * (the one line that changes). What the agent writes under `/memories` is a folder `memories/` of an
 * mdstore project: every change a revision, audited, visible in the console, shared by every agent
 * and server using the same project.
 *
 *   MDSTORE_URL, MDSTORE_API_KEY (a key with `write`, best scoped to one project), MDSTORE_PROJECT_ID,
 *   ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL to use another endpoint, as the test does)
 *
 * Run from the repository root: node --conditions=mdstore-source --import tsx examples/agent-memory/main.ts "I like green tea"
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { createClient, memoryTool } from '@mdstore/client';

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const mdstore = createClient({ baseUrl: need('MDSTORE_URL'), apiKey: need('MDSTORE_API_KEY') });
const projectId = need('MDSTORE_PROJECT_ID');
const anthropic = new Anthropic({ maxRetries: 0 });

// The one line: `betaMemoryTool(new BetaLocalFilesystemMemoryTool())` becomes this.
const memory = betaMemoryTool(memoryTool(mdstore, { projectId }));

const runner = anthropic.beta.messages.toolRunner({
  model: process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5',
  max_tokens: 1024,
  // The whole history each turn (the Messages API only), and a bound on the loop.
  thread: false,
  max_iterations: 10,
  tools: [memory],
  messages: [{ role: 'user', content: process.argv[2] ?? 'Remember what I tell you. I like green tea.' }],
});
for await (const message of runner) {
  for (const block of message.content) {
    if (block.type === 'text') console.log(`assistant: ${block.text}`);
    if (block.type === 'tool_use') console.log(`tool: ${JSON.stringify(block.input)}`);
  }
}

// What the agent remembered, read back as the folder it is in the project.
const files = await mdstore.files.list(projectId, { prefix: 'memories/' });
for (const file of files.files) console.log(`stored: ${file.filename} (${file.size_bytes} bytes)`);
