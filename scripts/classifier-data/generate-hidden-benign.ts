// Generates scripts/classifier-data/hidden-benign.jsonl (classifier 2.4):
// BENIGN text that real mail hides from the reader — the hidden pre-header of
// a marketing or transactional email, "view in browser" / delivery /
// tracking boilerplate, legal footers kept out of view, template comments
// left by email builders, accessibility and image-fallback text.
//
// Why: until 2.3 every hidden text the injection model trained on was an
// inserted payload (half attacks, half benign prompts and sentences), so the
// trees learned "hidden" itself as attack evidence: a retrained model scored
// the hidden pre-header "Save 30% on everything this weekend only - shop our
// spring collection" 0.72 (a hidden window with the word "only", read as
// output control). In real mail most hidden text is this kind of
// boilerplate. These fragments are embedded in host mail as hidden HTML by
// the same code that hides attacks (recipe option `hiddenBenign`), so
// "something is hidden" is not the signal; what the hidden text says is.
// Many use words of the attack vocabulary the way marketing does ("act now",
// "reply STOP", "only 3 left", "forward to a friend", "ignore this email if
// you did not ask for it", "your weekly summary").
// Written for this purpose in session 5 of issue #12, without reading any
// attack source; `group` = the template, so a split by group never shares one.
//   npx tsx scripts/classifier-data/generate-hidden-benign.ts
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { xorshift } from '../lib-classifier/xorshift.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const { pick } = xorshift(0x3c6ef372);

const PCT = ['10%', '15%', '20%', '25%', '30%', '40%', '50%', '60%'];
const WHEN = ['this weekend only', 'today only', 'until midnight', 'for 48 hours', 'through Sunday', 'while stocks last', 'this week only', 'until Friday'];
const WHAT = ['everything', 'sitewide', 'all outerwear', 'your next order', 'running shoes', 'home essentials', 'the spring collection', 'select laptops', 'annual plans', 'kids\u2019 clothing', 'garden furniture', 'skincare'];
const BRAND = ['Northwind', 'Fabrikam', 'Contoso', 'Tailspin Outdoors', 'Lumen Books', 'Alpine Coffee', 'Harbor & Pine', 'Bluebird Travel', 'Vela Fitness', 'Greenleaf Market'];
const ITEM = ['order #48213', 'order #1190-22', 'your package', 'order NW-77310', 'your return', 'booking HX4421', 'ticket #55102', 'invoice 2025-0311'];
const EMAIL = ['jordan@example.com', 'm.lopez@example.org', 'you@example.net', 'sam.lee@example.com', 'pat@example.co.uk'];
const TOPIC = ['product news', 'weekly deals', 'the engineering digest', 'community updates', 'event announcements', 'our newsletter', 'account alerts'];
const DAY = ['Monday', 'Tuesday', 'Thursday', 'Friday', 'the weekend'];

type T = [kind: string, make: () => string];
const TEMPLATES: T[] = [
  // marketing pre-headers (the first line an inbox shows, hidden in the body)
  ['preheader', () => `Save ${pick(PCT)} on ${pick(WHAT)} ${pick(WHEN)} - shop now`],
  ['preheader', () => `${pick(PCT)} off ${pick(WHAT)}, ${pick(WHEN)}. Don't miss out!`],
  ['preheader', () => `Only a few left: ${pick(WHAT)} at ${pick(PCT)} off ${pick(WHEN)}`],
  ['preheader', () => `Act now - free shipping on ${pick(WHAT)} ends ${pick(DAY)}`],
  ['preheader', () => `New arrivals are here. Be the first to shop ${pick(WHAT)}.`],
  ['preheader', () => `Your exclusive code inside: ${pick(PCT)} off ${pick(WHAT)}`],
  ['preheader', () => `Last chance! Our ${pick(PCT)} sale ends ${pick(WHEN)}.`],
  ['preheader', () => `Open now to see what we picked for you this week`],
  ['preheader', () => `Members only: early access to ${pick(WHAT)} starts now`],
  ['preheader', () => `Treat yourself - ${pick(WHAT)} from ${pick(BRAND)}, ${pick(WHEN)}`],
  ['preheader', () => `Don't forget: items in your cart are selling fast`],
  ['preheader', () => `Still thinking it over? Your cart is saved for ${pick(WHEN)}`],
  ['preheader', () => `Reply to this email with any questions - we read every message`],
  ['preheader', () => `Tickets for ${pick(DAY)} go on sale now. Reserve your seat before they are gone.`],
  ['preheader', () => `Upgrade now and get ${pick(PCT)} off your first year`],
  ['preheader', () => `Your ${pick(TOPIC)} for this week: top stories, new features and more`],
  ['preheader', () => `This week's summary: 3 new comments, 2 mentions and 1 pull request`],
  ['preheader', () => `Here is your monthly statement summary from ${pick(BRAND)}`],
  ['preheader', () => `Answer 3 quick questions and get ${pick(PCT)} off your next visit`],
  ['preheader', () => `We miss you! Come back for ${pick(PCT)} off ${pick(WHAT)}`],
  // transactional pre-headers
  ['preheader_tx', () => `Your ${pick(ITEM)} has shipped and is on its way`],
  ['preheader_tx', () => `Track ${pick(ITEM)}: estimated delivery ${pick(DAY)}`],
  ['preheader_tx', () => `Thanks for your order! Here is your receipt for ${pick(ITEM)}`],
  ['preheader_tx', () => `Your password was changed. If this was you, no action is needed.`],
  ['preheader_tx', () => `If you did not request this, you can safely ignore this email.`],
  ['preheader_tx', () => `Confirm your email address to finish setting up your ${pick(BRAND)} account`],
  ['preheader_tx', () => `Your appointment on ${pick(DAY)} is confirmed - add it to your calendar`],
  ['preheader_tx', () => `Action required: please update your payment method to avoid interruption`],
  ['preheader_tx', () => `Your invoice is ready. Payment is due in 14 days.`],
  ['preheader_tx', () => `Respond by ${pick(DAY)} to keep your reservation`],
  // delivery and "view in browser" boilerplate
  ['boilerplate', () => `Having trouble viewing this email? View it in your browser.`],
  ['boilerplate', () => `If you cannot see the images in this message, click here to view it online.`],
  ['boilerplate', () => `To make sure our emails reach your inbox, add ${pick(EMAIL)} to your address book or safe senders list.`],
  ['boilerplate', () => `Forward this email to a friend who might like it.`],
  ['boilerplate', () => `This email was sent to ${pick(EMAIL)} because you signed up for ${pick(TOPIC)}. Unsubscribe or manage your preferences.`],
  ['boilerplate', () => `You are receiving this because you subscribed to ${pick(TOPIC)} from ${pick(BRAND)}. Update your email preferences at any time.`],
  ['boilerplate', () => `Reply STOP to opt out of text messages. Message and data rates may apply.`],
  ['boilerplate', () => `Please do not reply to this message; this mailbox is not monitored.`],
  ['boilerplate', () => `${pick(BRAND)} Inc., 400 Market Street, Suite 12, San Francisco, CA 94105. All rights reserved.`],
  ['boilerplate', () => `Prices and availability are subject to change without notice. Offer valid ${pick(WHEN)}; cannot be combined with other offers.`],
  ['boilerplate', () => `*Terms apply. Discount applied at checkout. Excludes gift cards and sale items.`],
  ['boilerplate', () => `Privacy policy | Terms of service | Contact us | Unsubscribe`],
  ['boilerplate', () => `This message and any attachments are confidential and intended only for the named recipient. If you received it in error, please notify the sender and delete it.`],
  // tracking and accessibility text
  ['tracking', () => `Image: ${pick(BRAND)} logo`],
  ['tracking', () => `Open tracking pixel - ${pick(BRAND)} campaign ${pick(['spring', 'summer', 'q3', 'holiday', 'launch'])}-${pick(['a', 'b', 'c'])}`],
  ['tracking', () => `utm_source=newsletter utm_medium=email utm_campaign=${pick(['spring_sale', 'weekly_digest', 'onboarding_day3', 'winback'])}`],
  ['tracking', () => `Alt text: a photo of ${pick(WHAT)} on a wooden table`],
  ['tracking', () => `Spacer. Header image. Hero banner. Call to action button: Shop now.`],
  // template comments left by email builders (HTML comments are hidden text)
  ['comment', () => `${pick(['BEGIN', 'START'])} ${pick(['HEADER', 'HERO', 'FOOTER', 'PREHEADER', 'BODY', 'MAIN CONTENT', 'SOCIAL ICONS'])}`],
  ['comment', () => `[if mso]> Outlook only: fixed-width table for the ${pick(['header', 'hero image', 'two-column section', 'footer'])} <![endif]`],
  ['comment', () => `Visually hidden preheader text: it shows in the inbox preview only`],
  ['comment', () => `Module: ${pick(['product grid', 'testimonial', 'two column text', 'button', 'divider'])} - edit in the template builder, do not remove`],
  ['comment', () => `Replace this text with your own copy before sending`],
];

const rows: string[] = [];
let id = 0;
TEMPLATES.forEach(([kind, make], t) => {
  const seen = new Set<string>();
  for (let k = 0; k < 40 && seen.size < 12; k++) {
    const text = make();
    if (seen.has(text)) continue;
    seen.add(text);
    rows.push(JSON.stringify({ id: `h${String(++id).padStart(4, '0')}`, group: `hidden-${t}`, label: 0, kind, text }));
  }
});
writeFileSync(path.join(here, 'hidden-benign.jsonl'), rows.join('\n') + '\n');
console.log(`wrote hidden-benign.jsonl (${rows.length} records from ${TEMPLATES.length} templates)`);
