import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { hexColor } from "../../../core/schemas.ts";
import { COUNTDOWN_STYLES, countdownGroup } from "../groups/countdown.ts";
import { atLeastOne, cssLength, groupAction, groupGetAction, groupPatchAction, timestamp } from "../model.ts";

export { COUNTDOWN_MODES, COUNTDOWN_STYLES } from "../groups/countdown.ts";

export const COUNTDOWN_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    countdownGroup,
    "The offer's countdown configuration: enabled, mode (to_schedule_end or to_custom_date), format (units such as dd:hh:mm:ss), text, custom_end_date (to_custom_date only) and style (type inline, banner or boxed; text_color, background_color, border_radius).",
    { aliases: ["show the preorder countdown", "read the preorder countdown timer settings"] },
  ),
  groupPatchAction(
    countdownGroup,
    "Changes the countdown: enabled, mode, format, text, custom_end_date, style.",
    {
      aliases: ["update the preorder countdown", "turn on the preorder countdown timer"],
      notes: [
        "custom_end_date is kept only in to_custom_date mode; another mode clears it.",
        "An enabled to_custom_date countdown needs a custom_end_date.",
      ],
    },
  ),
  groupAction(countdownGroup, {
    action: "set_style",
    aliases: ["set the preorder countdown style", "change the preorder countdown colors"],
    description:
      "Sets the countdown's look: type (inline, banner or boxed), text_color and background_color (hex), border_radius (CSS length such as 4px); at least one. Answers the countdown group.",
    input: z
      .strictObject({
        type: z.enum(COUNTDOWN_STYLES).optional(),
        text_color: hexColor.optional(),
        background_color: hexColor.optional(),
        border_radius: cssLength.optional(),
      })
      .superRefine(atLeastOne(["type", "text_color", "background_color", "border_radius"])),
    patch: (input) => ({ style: input }),
  }),
  groupAction(countdownGroup, {
    action: "set_custom_end_date",
    aliases: ["set the preorder countdown end date", "count down to a custom date"],
    notes: ["Switches the countdown to mode to_custom_date (decision 0241): from to_schedule_end this sets its first date, which a PATCH of the mode alone could not while the countdown is enabled."],
    description:
      "Sets the date the countdown runs to (date: ISO 8601 timestamp) and its mode to to_custom_date. Answers the countdown group.",
    input: z.strictObject({ date: timestamp }),
    patch: (input) => ({ mode: "to_custom_date" as const, custom_end_date: input.date }),
  }),
];
