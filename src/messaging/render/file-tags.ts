import { type Liquid, Tag, type TagToken, type TopLevelToken } from "liquidjs";

/**
 * The tags that read another template by name (`include`, `render`, `layout`): merchant templates
 * are one text each, so these are refused where the template is parsed, with what to do instead.
 * Without this, liquidjs looked the name up in the engines' empty in-memory map and answered its
 * file-system error (`ENOENT: Failed to lookup "x" in "."`), at render only.
 */
export const FILE_TAGS = ["include", "render", "layout"] as const;

export function refuseFileTags(engine: Liquid): void {
  for (const name of FILE_TAGS) {
    engine.registerTag(
      name,
      class RefusedFileTag extends Tag {
        constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid) {
          super(token, remain, liquid);
          throw new Error(`{% ${name} %} is not supported: a template cannot use another template; write that part into this one`);
        }

        *render(): Generator<unknown, void, unknown> {
          // Never parsed, so never rendered.
        }
      },
    );
  }
}
