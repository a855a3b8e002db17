import { z } from "zod";
import { type AnyAction, defineAction } from "../../../core/action.ts";
import { conflict } from "../../../core/errors.ts";
import { changeGroup, groupAction, groupGetAction, groupPatchAction, groupPath, touchOffer, offerParams, presentGroup, requiredLabel } from "../model.ts";
import { BUTTON_TEXT_STATES, advancedGroup, splitIsOrders } from "../groups/plan-groups.ts";
import { advancedOutput } from "../outputs.ts";

const attachToPlatformSellingPlan = defineAction({
  name: "preorders.offers.advanced.attach_to_platform_selling_plan",
  method: "POST",
  path: groupPath("advanced", "attach_to_platform_selling_plan"),
  description:
    "Re-attaches the offer to a platform selling plan group (advanced.use_platform_selling_plan true) and resumes its sync to the platform (sync.status pending), also when already attached. 409 while shipping fulfillment.split.type is orders: turn that split setting off first. Answers the advanced group.",
  aliases: ["attach a preorder offer to a platform selling plan", "resume syncing a preorder offer to the platform"],
  notes: ["Refused (409) while shipping fulfillment.split.type is orders: turn that split setting off first."],
  output: advancedOutput,
  kind: "write",
  params: offerParams,
  input: z.strictObject({}),
  async handler(ctx, { params }) {
    const { offer, value, changed } = await changeGroup(ctx, params.id, advancedGroup, {
      mode: "action",
      action: "advanced/attach_to_platform_selling_plan",
      precheck(o) {
        if (splitIsOrders(o)) {
          throw conflict(
            "attach_to_platform_selling_plan refused: shipping fulfillment.split.type is orders; turn that split setting off first",
          );
        }
      },
      patch: () => ({ use_platform_selling_plan: true }),
    });
    if (!changed) await touchOffer(ctx.db, ctx.shopId, params.id);
    return presentGroup(advancedGroup, value, offer.row);
  },
});

export const ADVANCED_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    advancedGroup,
    "The offer's advanced settings: use_platform_selling_plan, custom_css, and button_text_overrides (the button's text per display state before_launch, after_launch, out_of_stock; null uses widget.button.text).",
    { aliases: ["show the advanced preorder settings", "read the preorder custom css"] },
  ),
  groupPatchAction(
    advancedGroup,
    "Changes advanced settings: use_platform_selling_plan, custom_css (at most 20000 characters), button_text_overrides.",
    {
      aliases: ["update the advanced preorder settings", "add custom css to the preorder widget", "detach a preorder offer from the platform selling plan"],
      notes: [
        "use_platform_selling_plan false detaches the offer from its platform selling plan group and turns the deposit option off.",
        "use_platform_selling_plan true is refused while shipping fulfillment.split.type is orders.",
      ],
    },
  ),
  groupAction(advancedGroup, {
    action: "set_button_text_override",
    aliases: ["set the preorder button text for a display state", "change the out of stock preorder button text"],
    description:
      "Replaces the button's text for one display state: state is before_launch, after_launch or out_of_stock; text is required. Answers the advanced group.",
    input: z.strictObject({ state: z.enum(BUTTON_TEXT_STATES), text: requiredLabel }),
    patch: (input) => ({ button_text_overrides: { [input.state]: input.text } }),
  }),
  attachToPlatformSellingPlan,
];
