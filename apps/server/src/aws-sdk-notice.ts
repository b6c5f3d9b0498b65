/**
 * The AWS SDK prints a multi-line notice on stderr when it runs on a Node.js older than the version its
 * future releases will need: it would break the server's JSON-lines log and the admin CLI's clean stderr.
 * Its documented switch (`AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true`, aws/aws-sdk-js-v3#7983)
 * turns it off. An operator's own value is kept (then the SDK decides).
 *
 * Returns whether this call turned the notice off (the server then logs the same fact as one warn line).
 */
export function silenceAwsSdkNodeNotice(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED !== undefined) return false;
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  return true;
}
