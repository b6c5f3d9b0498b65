import { describe, expect } from 'vitest';
import { type HttpHarness, parseRawResponse, serverTest } from '../support/http-harness.js';

/**
 * The `/mcp` Origin check (issue 22, finding 6) compares `Origin` with the origins the server knows to
 * be its own — the loopback names of the port the connection reached, and `MDSTORE_PUBLIC_ORIGINS` —
 * never with the request's `Host`, which a DNS-rebinding page controls as much as `Origin`.
 */
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** `POST /mcp` sent raw, so `Host` says whatever the test wants. */
async function mcpWith(h: HttpHarness, apiKey: string, host: string, origin: string) {
  const request =
    `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nAuthorization: Bearer ${apiKey}\r\n` +
    'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n' +
    `Content-Length: ${Buffer.byteLength(INITIALIZE)}\r\n\r\n${INITIALIZE}`;
  return parseRawResponse(await h.raw(request)).status;
}

describe('the MCP Origin check', () => {
  const test = serverTest();

  test('an Origin that only matches the Host it came with is 403 (DNS rebinding)', async (h) => {
    const { apiKey } = await h.account();
    const rebound = `evil.example:${h.port}`;
    expect(await mcpWith(h, apiKey, rebound, `http://${rebound}`)).toBe(403);
    expect(await mcpWith(h, apiKey, `127.0.0.1:${h.port}`, `http://${rebound}`)).toBe(403);
  });

  test('the loopback names of the listening port pass, whatever the Host', async (h) => {
    const { apiKey } = await h.account();
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      expect(await mcpWith(h, apiKey, `evil.example:${h.port}`, `http://${host}:${h.port}`), host).toBe(200);
    }
    // Another port, or another scheme, on the same names is someone else.
    expect(await mcpWith(h, apiKey, `localhost:${h.port}`, `http://localhost:${h.port + 1}`)).toBe(403);
    expect(await mcpWith(h, apiKey, `localhost:${h.port}`, `https://localhost:${h.port}`)).toBe(403);
    expect(await mcpWith(h, apiKey, `localhost:${h.port}`, 'http://localhost')).toBe(403);
  });

  serverTest({ app: { publicOrigins: ['https://mdstore.example.com'] } })(
    'a configured public origin passes; its look-alikes do not',
    async (h) => {
      const { apiKey } = await h.account();
      expect(await mcpWith(h, apiKey, 'mdstore.example.com', 'https://mdstore.example.com')).toBe(200);
      expect(await mcpWith(h, apiKey, 'mdstore.example.com', 'http://mdstore.example.com')).toBe(403);
      expect(await mcpWith(h, apiKey, 'mdstore.example.com', 'https://mdstore.example.com.evil')).toBe(403);
      expect(await mcpWith(h, apiKey, 'evil.example', 'https://evil.example')).toBe(403);
    },
  );
});
