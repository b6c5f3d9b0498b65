import type { ConversionConfig } from '@valibot/to-json-schema';

/**
 * How valibot schemas become JSON Schema (2020-12, the dialect of OpenAPI 3.1), with
 * `@valibot/to-json-schema`: one configuration for the OpenAPI document (`openapi.ts`) and the MCP
 * tools' input schemas (`mcp/tool-schemas.ts`), so both describe the same rules the same way.
 */
export const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'output',
  // Anything else the converter cannot express fails the start (and the tests), rather than vanish.
  errorMode: 'throw',
  // Rules that are functions have no JSON Schema: the core's schemas state them with `v.metadata`
  // (e.g. NameSchema's `{ minLength: 1, maxLength: 255 }`), which the converter copies.
  ignoreActions: ['check', 'to_lower_case'],
  overrideSchema: ({ valibotSchema }) => (valibotSchema.type === 'custom' ? {} : undefined),
  overrideAction: ({ valibotAction, jsonSchema }) => {
    // A case-insensitive pattern would be read case-sensitively: leave it to `format` (e.g. uuid).
    const { requirement } = valibotAction as { requirement?: unknown };
    if (valibotAction.type === 'regex' && requirement instanceof RegExp && requirement.flags.includes('i')) {
      const { pattern: _dropped, ...rest } = jsonSchema;
      return rest;
    }
    return undefined;
  },
};
