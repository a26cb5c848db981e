// Generates scripts/classifier-data/cold-styles.jsonl: hand-written cold
// pitches in many STYLES (issue #12: soft pitches that never say "sales" —
// partnership, "quick question", recruiting, link-building, investor
// outreach, event invitations …, other industries, lengths and languages)
// and transactional mail in styles of its own. Unlike cold-outreach.jsonl
// (template families), each core here is written out by hand; a record is a
// core with a greeting/sign-off drawn from a small list. `group` =
// `<style>/<core>`, `style` = the unit of the leave-one-style-out
// evaluation (scripts/eval-classifier.ts).
//   npx tsx scripts/classifier-data/generate-cold-styles.ts
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { xorshift } from '../lib-classifier/xorshift.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const { pick } = xorshift(0x3c0ffee1);
const FIRST = ['Anna', 'Ben', 'Carla', 'Dmitri', 'Elif', 'Femi', 'Greta', 'Hiro', 'Ines', 'Jakub', 'Kofi', 'Lena', 'Marco', 'Nadia', 'Oscar', 'Paula'];
const SENDER = ['Rachel Kim', 'Tobias Weber', 'Sunita Rao', 'Diego Alvarez', 'Hannah Lee', 'Marek Nowak', 'Claire Martin', 'Samuel Osei'];

// [style, subject, body] — {n} = recipient's first name, {me} = sender
type Core = [string, string];
const PITCH: Record<string, Core[]> = {
  partnership: [
    ['Partnership idea', 'I run community at Loomly, a scheduling tool used by about 8,000 independent clinics. Several of them have asked whether we connect with your patient-intake forms. Would you be open to exploring an integration together? Happy to share what a co-marketing launch looked like with our last two partners.'],
    ['Working together?', 'We make packaging for small coffee roasters and keep running into your brand at the shops we supply. I think there is a natural fit between what we do and your subscription boxes. Could we find 20 minutes to compare notes?'],
    ['Co-hosting something in March', 'Our newsletter reaches 40k product managers and yours reaches designers; a joint workshop could be good for both audiences. I have a rough outline ready if you want to take a look.'],
    ['Referral arrangement', 'We do bookkeeping for early-stage startups and often get asked for a recommendation for payroll. Would you be interested in a mutual referral arrangement? We would send clients your way and vice versa, with a standard referral fee.'],
    ['A possible fit between our teams', 'I lead alliances at Verdant Energy. We are putting together a small group of installers for a new residential battery programme in your region and your company keeps coming up. Would you like to hear how the programme works?'],
    ['Idea for your marketplace', 'We built a returns-management plugin that a few of the sellers on your marketplace already use. There might be an opportunity to offer it natively to all sellers. Who on your side looks after partner apps?'],
  ],
  quick_question: [
    ['Quick question', 'Quick question: who looks after vendor onboarding at your company these days? I have something that could cut the paperwork in half and wanted to make sure I reach the right person.'],
    ['quick q', 'Are you still the right person to talk to about the customer-support tooling? If not, could you point me in the right direction?'],
    ['{n}, one question', 'Is reducing no-shows for your appointments something you are working on this quarter? If so, I have a two-minute idea. If not, no worries at all.'],
    ['question about your website', 'Do you handle the website yourself or is there an agency behind it? I noticed the checkout takes four clicks on mobile and had a thought on how to make it one.'],
    ['Curious', 'Curious whether you have looked at automating your month-end close yet. We have been helping finance teams of about your size do exactly that.'],
    ['Hoping you can help', 'Hoping you can help me out: who would be in charge of evaluating new learning platforms for your engineers?'],
  ],
  recruiting: [
    ['Exciting opportunity', 'I came across your GitHub profile and your work on distributed caching really stood out. I am working with a well-funded fintech in Amsterdam that is building its platform team. Fully remote within the EU, competitive equity. Would you be open to a confidential chat?'],
    ['Your background + a role', 'Your experience leading design systems is exactly what one of my clients is looking for. It is a Head of Design role at a Series B health company. Are you open to hearing more, even if you are not actively looking?'],
    ['Opportunity at a stealth startup', 'I am a technical recruiter with Northbridge Talent. A stealth AI startup founded by ex-DeepMind engineers is hiring founding engineers, salary up to 220k plus meaningful equity. Could I send you the details?'],
    ['Senior accountant role', 'I have a permanent Senior Accountant position with a manufacturing group near you, hybrid, excellent benefits. Based on your profile I think you would be a strong fit. When would be a good time to call?'],
    ['Are you open to new roles?', 'Hope you do not mind the direct message. We are hiring nurses for a new private clinic opening in September, with a signing bonus and flexible shifts. Interested in learning more?'],
  ],
  link_building: [
    ['Guest post for your blog', 'I am a freelance writer and a long-time reader of your blog. I would love to contribute a high-quality article on remote team rituals, free of charge. In return I would only ask for one contextual link. Can I send a few topic ideas?'],
    ['Broken link on your resources page', 'I was reading your guide on home composting and noticed that the link to the soil-testing study is broken. We recently published an updated version of that research; it might make a good replacement. Happy to send the URL.'],
    ['Collaboration on content', 'We publish data-driven articles on personal finance that get picked up by major outlets. Would you be interested in a content swap? We link to your calculator and you mention our savings study.'],
    ['Sponsored article', 'We represent several brands in the travel niche and would like to place a sponsored article on your site. Our budget is 250 USD per post with a do-follow link. Please let me know your rates.'],
    ['Mentioning our tool', 'I loved your roundup of note-taking apps. We launched a new one last month that would fit nicely in that list. Would you consider adding it? I can give you a lifetime account to try it out.'],
  ],
  investor: [
    ['Introduction from Hillside Ventures', 'I am a partner at Hillside Ventures, an early-stage fund focused on climate software. We have been following your progress and would love to learn more about your plans for the next 18 months. No pitch deck needed, just a conversation.'],
    ['Following your traction', 'Congrats on the recent launch, the reception on Product Hunt was impressive. We lead seed rounds of 1 to 3 million and are very interested in developer tools. Would you have time for a coffee in the next couple of weeks?'],
    ['Fund investing in your space', 'We are a family office that has started investing directly in B2B software. Your company fits our thesis well. Are you raising now or planning to in the next year?'],
    ['Could we meet?', 'I invest in marketplaces at Granite Capital. A mutual connection mentioned you might start fundraising in the spring. I would love to get to know you before that. Any chance for a short call?'],
  ],
  event_invite: [
    ['Invitation: CFO roundtable dinner', 'I would like to invite you to a private dinner for 12 finance leaders on 14 May in London, hosted by our team at Ledgerline. The discussion will be about forecasting in uncertain markets. There is no cost to attend. Can I save you a seat?'],
    ['Join us at RetailTech Summit', 'We are hosting 600 retail leaders in Lisbon this October and would love to have you there. Use the code VIP50 for half off your pass. Speakers include the COO of a major grocery chain.'],
    ['You are invited: live webinar', 'Join our live webinar "Five ways to cut procurement costs" next Thursday at 4pm CET. We will share benchmarks from 300 companies and leave time for questions. Reserve your spot with one click.'],
    ['Speaking slot at our conference', 'We are finalising the agenda for DevOps Days North and have a couple of sponsored speaking slots left. Given your company profile it seemed like a great fit. Shall I send the sponsorship prospectus?'],
    ['Exclusive executive breakfast', 'On behalf of Arcadia Consulting, you are invited to an executive breakfast on cybersecurity resilience at the Grand Hotel on 3 June. Seats are limited to 20 guests.'],
  ],
  agency: [
    ['Helping clinics like yours', 'We are a small marketing studio that works only with dental clinics. Last year we helped 14 practices fill their calendars with new patients through local search. I recorded a short video walking through three things I would change on your site.'],
    ['Your Amazon listings', 'I run an agency that manages Amazon accounts for home-goods brands. I took a look at your listings and think the images and keywords are leaving money on the table. Want me to send a free audit?'],
    ['Bookkeeping off your plate', 'Running a restaurant is hard enough without chasing receipts. Our team handles bookkeeping, payroll and tax filing for independent restaurants for a flat monthly fee. Would that be helpful?'],
    ['Website refresh', 'I am a freelance web developer. Your site looks great on desktop but breaks on phones in a few places. I can fix it within a week for a fixed price. Interested?'],
  ],
  industrial: [
    ['Supplier of CNC machined parts', 'Dear purchasing manager, we are a manufacturer of precision CNC machined parts with ISO 9001 certification and 15 years of export experience. We offer competitive prices, fast samples and flexible MOQ. Please send us your drawings for a quotation.'],
    ['LED lighting supply', 'Hello, this is Lily from Shenzhen Bright Lighting. We produce LED panels and high-bay lights for warehouses and supply distributors in 30 countries. May I send you our latest catalogue and price list?'],
    ['Industrial cleaning services', 'Our company provides industrial cleaning for food processing plants, including overnight sanitation and audit preparation. We would welcome the opportunity to provide a quote for your facility.'],
    ['Pallets and packaging', 'We manufacture heat-treated wooden pallets and custom crates, delivered within 48 hours anywhere in the region. If you ever need a second supplier, I would be glad to send prices.'],
  ],
  local_business: [
    ['Interested in selling your property?', 'I specialise in homes in your neighbourhood and have several buyers looking for exactly your type of house. If you have ever thought about selling, I would be happy to give you a free valuation, no obligation.'],
    ['Office cleaning quote', 'We clean offices in the city centre in the evenings and noticed your office on Kingsway. We are offering a free first clean for new customers this month. Can I drop by to give you a quote?'],
    ['Solar for your roof', 'Homeowners on your street have been saving up to 70% on electricity with our solar installations. Government grants currently cover part of the cost. Would you like a free roof assessment?'],
    ['Your company vehicles', 'We provide fleet leasing for small businesses with maintenance included. Many of our clients save 20 percent compared to buying. Could I prepare a comparison for your current vans?'],
  ],
  affiliate: [
    ['Collab with our brand?', 'Hi! We are a sustainable skincare brand and we love your content. We would love to send you our new serum and discuss a paid collaboration on Instagram. Let me know if you are interested!'],
    ['Affiliate programme invitation', 'Your audience would be a great match for our budgeting app. Our affiliate programme pays 30% recurring commission for life. Sign-up takes two minutes and I can bump you to our premium tier.'],
    ['Sponsor your next video', 'We would like to sponsor an integration in one of your upcoming YouTube videos. Our budget is flexible depending on your views. Please send over your media kit and rates.'],
  ],
  followup: [
    ['Re: quick question', 'Just floating this back to the top of your inbox. Did you get a chance to think about my note from last week?'],
    ['Following up', 'I know things get busy, so I wanted to follow up on my previous email. Would a short call on Thursday work?'],
    ['Bumping this', 'Bumping this in case it slipped through. Happy to send a one-page summary if that is easier.'],
    ['Should I close the loop?', 'I have reached out a few times without hearing back, which usually means the timing is not right. Should I close your file, or check back next quarter?'],
  ],
  one_liner: [
    ['hi', 'Would you be interested in cutting your cloud bill by 30%?'],
    ['Demo?', 'Open to a 10-minute demo of our scheduling tool this week?'],
    ['For your team', 'We build custom internal tools in two weeks flat. Worth a chat?'],
    ['Intro', 'Saw you are hiring SDRs, we can help you hire them twice as fast. Interested?'],
  ],
  long_story: [
    ['A story you might relate to', 'Three years ago I was running operations at a logistics company and spent every Friday reconciling carrier invoices by hand. We overpaid by almost 4% and nobody noticed for months. That frustration is why I started Freightcheck. Today we audit invoices for 200 shippers and recover an average of 3.2% of their freight spend, and we only get paid from what we recover. I looked at your shipping volume and I think the numbers could be meaningful for you. If it is useful, I can run a free audit on one month of your invoices and share the results, whether or not you decide to work with us. Would that be worth 15 minutes next week?'],
    ['Why we built this', 'When my co-founder and I were teachers, we spent hours every week writing report-card comments. So we built a tool that drafts them from a teacher’s own notes, in their voice. It is now used in 900 schools, and teachers tell us it saves them a full weekend each term. Your school district came up in a conversation with a principal we work with, and I would love to show your team how it works. I can set up a free pilot for one school this term if you are curious.'],
  ],
  foreign: [
    ['Kurze Frage', 'Hallo {n}, ich bin auf Ihr Unternehmen aufmerksam geworden und glaube, dass wir Ihnen helfen können, Ihre Lagerkosten um 20 % zu senken. Hätten Sie nächste Woche 15 Minuten Zeit für ein kurzes Gespräch?'],
    ['Proposition de partenariat', 'Bonjour {n}, je dirige une agence spécialisée dans la création de contenus vidéo pour les marques de mode. Je serais ravie de vous présenter quelques exemples de nos réalisations. Seriez-vous disponible pour un appel cette semaine ?'],
    ['Colaboración', 'Hola {n}, somos una empresa de desarrollo de software con sede en Valencia y trabajamos con startups de toda Europa. Nos encantaría conocer sus proyectos y ver si podemos ayudarles. ¿Le vendría bien una llamada breve?'],
    ['Una proposta per voi', 'Buongiorno {n}, la nostra azienda offre servizi di traduzione tecnica per il settore industriale. Saremmo lieti di inviarvi un preventivo gratuito per i vostri manuali.'],
    ['Samenwerking', 'Hoi {n}, wij helpen webshops om hun conversie te verhogen met betere productfoto’s. Zullen we volgende week even bellen om te kijken of we iets voor jullie kunnen betekenen?'],
    ['Oferta de parceria', 'Olá {n}, trabalho com marketing digital para clínicas e acredito que podemos ajudar a aumentar o número de pacientes da sua clínica. Posso enviar uma proposta sem compromisso?'],
    ['Propozycja współpracy', 'Dzień dobry, jesteśmy firmą zajmującą się obsługą księgową małych firm. Chętnie przygotujemy bezpłatną wycenę dla Państwa działalności. Czy mogę zadzwonić w przyszłym tygodniu?'],
  ],
};

const TRANSACTIONAL: Record<string, Core[]> = {
  support_reply: [
    ['Re: Login problem', 'Thanks for getting back to me. I reset the two-factor setting on your account, so you can sign in with your password now and set up the authenticator again. Let me know if it still fails and I will look at the logs.'],
    ['Re: Refund for order 88213', 'I have issued the refund of 42.50 EUR to your original payment method. It usually shows up within five working days. Sorry again for the damaged package.'],
    ['Re: Export not working', 'Our engineers found the cause: exports with more than 10,000 rows timed out. A fix went out this morning, so please try again and reply here if anything looks off.'],
    ['Your ticket #5521 has been updated', 'Your request about the missing invoice has been answered. The invoice for March is attached to this email. You can reply to this message to reopen the ticket.'],
  ],
  hr_internal: [
    ['Reminder: benefits enrolment closes Friday', 'Hi all, a reminder that open enrolment for next year’s benefits closes this Friday at 5pm. If you do not make changes, your current elections carry over. Questions go to hr@ourcompany.com.'],
    ['Your leave request was approved', 'Your leave request for 12–16 August has been approved by your manager. Your remaining balance is 9 days.'],
    ['Office move next week', 'Team, the move to the third floor happens next Tuesday. Please pack your desk by Monday evening; movers arrive at 7am. Badges will work on the new floor from Tuesday morning.'],
    ['Welcome to the team, {n}', 'We are happy to have you with us from Monday. Your laptop will be ready at reception at 9am and Grace will walk you through onboarding. Bring a photo ID for your badge.'],
  ],
  billing: [
    ['Your subscription renews on 1 June', 'This is a reminder that your Pro plan renews on 1 June for 29 USD. No action is needed if you want to continue. You can change or cancel your plan in the billing settings.'],
    ['Payment failed for invoice INV-2291', 'We could not charge your card ending in 4421 for invoice INV-2291 (59.00 USD). Please update your payment method within 7 days to avoid interruption.'],
    ['Receipt for your payment', 'Thank you for your payment of 120.00 EUR on 3 March. Invoice number 2025-0341 is attached for your records.'],
    ['Invoice overdue: reminder', 'Our records show invoice 7781, due on 15 February, is still open. If you have already paid, please ignore this message; otherwise you can pay by bank transfer using the reference on the invoice.'],
  ],
  appointment: [
    ['Appointment confirmation', 'Your appointment with Dr. Hassan is confirmed for Tuesday 11 March at 10:30. Please arrive 10 minutes early and bring your insurance card. Reply C to cancel.'],
    ['Reminder: your service appointment tomorrow', 'Your car is booked in for its annual service tomorrow at 8:00 at our Elm Road workshop. The service takes about three hours; we will call you when it is ready.'],
    ['Parent-teacher meeting', 'Dear parents, the parent-teacher meetings take place on 20 March from 4pm to 7pm. Please book a slot with your child’s teacher through the school portal by Friday.'],
    ['Your table is booked', 'Thanks for booking with Osteria Nonna. Your table for four is reserved for Saturday at 7:30pm. If your plans change, please let us know a day in advance.'],
  ],
  registered_event: [
    ['Your webinar starts in one hour', 'You registered for "Budgeting for small teams", which starts today at 3pm CET. Join with the link in your calendar invite. The recording will be emailed to all registrants.'],
    ['Your ticket for PyCon', 'Thanks for registering. Your ticket number is PC-44817. Please bring it on your phone for check-in; badges are printed on site.'],
    ['Agenda for tomorrow’s workshop', 'Thanks for signing up for tomorrow’s workshop. We start at 9:30 with coffee; the session runs until 1pm. Please bring a laptop with Python installed.'],
  ],
  reply_personal: [
    ['Re: weekend', 'Sounds good! We will bring the salad and some drinks. See you Saturday around 6.'],
    ['Re: contract draft', 'Thanks, I read through it. Clause 7 still mentions the old notice period; could you change it to 60 days? Everything else looks fine to me.'],
    ['Re: Intro: Maria <> Tom', 'Thanks for the intro! Tom, great to meet you. Maria mentioned you are looking into cold-chain logistics; happy to share what we learned. Does Thursday afternoon work for a call?'],
    ['Re: quick question', 'Yes, the meeting room is booked from 2 to 4. I will send the dial-in link in the invite.'],
  ],
  legal_notice: [
    ['Changes to our terms of service', 'We are updating our terms of service effective 1 May. The main change concerns how we handle data exports. You can read the full text in your account settings; continuing to use the service means you accept the updated terms.'],
    ['Notice of data processing', 'As required by GDPR, we inform you that your data will be processed by our new payment provider from 1 April. No action is required on your part.'],
    ['Jury service confirmation', 'This confirms that you have been excused from jury service for the session starting 4 June. Please keep this letter for your records.'],
  ],
};

// Classifier 2.1 (issue #12, session 2): more styles, written before looking
// at which held-out styles the 2.0 screen missed beyond the counts in
// docs/classifier.md. Emitted after the 2.0 styles so those records stay
// byte-identical; the 2.0 cold recipe never trains on them (cold.ts).
const PITCH_21: Record<string, Core[]> = {
  podcast_pr: [
    ['Guest spot on our podcast', 'I produce "Operators Unfiltered", a podcast for founders with about 12k weekly listeners. We would love to have you on to talk about how you scaled support. Episodes are sponsored, so there is a small production fee of 300 USD. Interested?'],
    ['Feature in our industry magazine', 'We are preparing a special section on the most innovative logistics companies of the year and your firm is on our shortlist. Featured companies receive a full-page profile; the publication package starts at 1,900 EUR. Can I send the media kit?'],
    ['Award nomination', 'Congratulations, your company has been nominated for the Regional Business Excellence Awards. To confirm your nomination and reserve your table at the gala, please complete the entry form; the entry fee covers judging and two tickets.'],
    ['Story idea for your brand', 'I run a PR agency for consumer tech and noticed your launch got very little press coverage. We have placed clients in TechCrunch, Wired and The Verge. Would you be open to a quick call about a campaign for your next release?'],
  ],
  free_pilot: [
    ['Free pilot for your warehouse', 'We are offering three companies in your region a free 30-day pilot of our pick-path optimisation software. Customers typically see 15% fewer walking metres in the first month. Would your team like one of the slots?'],
    ['Try it free for your team', 'I set up a free workspace for your team on Notely, no credit card needed. Your colleagues can start sharing meeting notes today. Want me to send the invite link to a few of them?'],
    ['Complimentary assessment', 'We are running complimentary cloud cost assessments this month. It takes one hour with your engineers and you get a report with concrete savings. Shall I book a time with you?'],
    ['Sample pack on us', 'We roast specialty coffee for offices and would like to send your team a free sample pack. If your people like it, we deliver fresh beans every two weeks. What address should we ship it to?'],
  ],
  sponsorship_ask: [
    ['Sponsoring our hackathon?', 'We are organising a student hackathon with 400 participants in November. Sponsorship packages start at 2,000 EUR and include logo placement, a booth and access to the CV book. Would your company like to take part?'],
    ['Partner with our charity run', 'Our annual charity run raises money for children’s hospitals. We are looking for local businesses to sponsor a kilometre marker for 500 USD. It is a great way to show community spirit. Can I count you in?'],
    ['Booth at the trade fair', 'There are still a few exhibitor booths available at the Nordic Food Fair in April. Given your product range you would fit the organic hall perfectly. Early-bird pricing ends this Friday.'],
    ['Support our meetup', 'I run the city’s largest data-science meetup, about 1,500 members. We are looking for a venue sponsor for the next season and would gladly give your team a slot to present. Would that interest you?'],
  ],
  audit_hook: [
    ['I audited your website', 'I ran a quick audit of your website and found three issues that are probably costing you visitors: slow images on the homepage, missing meta descriptions and two broken forms. I can fix all three this week. Shall I send the full report?'],
    ['Your Google Ads account', 'I took a look at your public ads and think you are paying for a lot of irrelevant clicks. We usually cut wasted spend by a third within a month. Want me to share what I found?'],
    ['Security gaps I noticed', 'While researching companies in your sector, I noticed your mail domain has no DMARC policy and your login page leaks the server version. We are a small security consultancy; happy to walk you through the fixes on a short call.'],
    ['Your reviews', 'Your shop has great products but only 3.6 stars on Google, mostly from old reviews. Our review-management service helps businesses like yours reach 4.5 stars within 90 days. Can I show you how?'],
  ],
  trigger_event: [
    ['Congrats on the funding', 'Congratulations on closing your Series A! Teams usually start hiring fast after a round, and that is where we come in: we run payroll and benefits for startups in 30 countries. Worth a conversation?'],
    ['Saw the new office', 'I saw on LinkedIn that you just opened an office in Munich. Setting up IT for a new site is a lot of work; we handle laptops, networking and support for growing teams. Could we help with the move?'],
    ['Your new role', 'Congratulations on the new role as Head of Operations! New leaders often review their tools in the first 90 days. If supply-chain visibility is on your list, I would love to show you what we do.'],
    ['Noticed you are expanding', 'Noticed you are opening stores in three new cities this year. We help retailers recruit and train seasonal staff quickly. Would it make sense to talk before the summer rush?'],
  ],
  reseller: [
    ['Distribution in Latin America', 'We are a distributor of kitchen equipment with warehouses in Mexico, Colombia and Chile. We would like to carry your product line in the region. Could you send your distributor terms and price list?'],
    ['White-label offer', 'We offer our analytics dashboard as a white-label product, so agencies like yours can resell it under their own brand with a 40% margin. Would you like a demo account?'],
    ['Become a reseller', 'Our accounting software is growing fast among small firms and we are looking for resellers in your country. Partners earn recurring commission and get free training. Are you interested in joining the programme?'],
    ['Private-label production', 'We manufacture natural cosmetics for private labels, with low minimum order quantities and your branding. I would be glad to send you our catalogue and a few samples.'],
  ],
  warm_flattery: [
    ['Loved your talk', 'I really enjoyed your talk at the product conference last week, especially the part about onboarding metrics. We help product teams track exactly that without engineering work. Would you be up for a short chat?'],
    ['Fan of your newsletter', 'I have been reading your newsletter for a year and always learn something. I am building a tool that turns newsletters into podcasts automatically, and I think your readers would love an audio version. Could I make you a free sample episode?'],
    ['Your article on pricing', 'Your article on usage-based pricing was spot on. We built a billing platform that makes switching to usage pricing painless, and several companies you mentioned use it. Would you like to see it?'],
    ['Great work on the redesign', 'The redesign of your app looks fantastic. We make user-testing panels for consumer apps, so you could validate the next release with 50 real users in 48 hours. Want me to set up a trial?'],
  ],
};
const TRANSACTIONAL_21: Record<string, Core[]> = {
  shipping: [
    ['Your order has shipped', 'Good news: your order 40-8812 is on its way. Tracking number 1Z999AA10123456784 with UPS; estimated delivery Thursday. You can follow the parcel from your account page.'],
    ['Delivery attempt failed', 'We tried to deliver your parcel today but nobody was home. It will be held at the pickup point on Market Street for seven days. Bring this email and a photo ID.'],
    ['Your return was received', 'We have received your return for order 55102. The refund of 34.90 EUR will be issued within three working days to your original payment method.'],
    ['Order confirmation', 'Thank you for your order. Two items will be shipped from our warehouse within 24 hours; a confirmation with the tracking link follows once the parcel leaves.'],
  ],
  security_notice: [
    ['New sign-in to your account', 'We noticed a new sign-in to your account from Chrome on Windows in Berlin, Germany. If this was you, no action is needed. If not, reset your password from the security page.'],
    ['Your password was changed', 'The password for your account was changed today at 09:14 UTC. If you did not make this change, contact support immediately using the link in your account settings.'],
    ['Two-factor authentication enabled', 'Two-factor authentication is now enabled on your account. Keep your recovery codes somewhere safe; you will need them if you lose your phone.'],
    ['API key created', 'A new API key named "deploy-bot" was created in your workspace by Hannah Lee. You can review or revoke keys in the workspace settings.'],
  ],
  project_update: [
    ['Sprint 14 summary', 'Team, sprint 14 closed with 23 of 26 stories done. The remaining three move to next sprint; the payment-retry bug is the priority. Retro notes are in the shared folder.'],
    ['Re: Q3 plan', 'Thanks for the comments. I moved the migration to October and added a week of buffer before the launch. Updated timeline attached; let me know if the dates work for your team.'],
    ['Status: website launch', 'Quick status: copy is final, images arrive Wednesday, and the developers start the build on Thursday. We are still on track for the 15th.'],
    ['Minutes from today', 'Attached are the minutes from today’s steering meeting. Action items: Marek sends the revised budget by Friday; Claire schedules the vendor review.'],
  ],
  existing_vendor: [
    ['Quote as discussed', 'As discussed on our call yesterday, here is the quote for the additional 20 licences. Pricing matches your current contract; the offer is valid until the end of the month. Let me know if you need a PO reference on it.'],
    ['Re: renewal', 'Thanks for confirming the renewal. I have sent the contract for e-signature; once it is signed, your plan continues without interruption on 1 July.'],
    ['Your account review', 'Ahead of our quarterly review next Tuesday, I attached your usage report for the last three months. Your team’s seats are 90% used; we can discuss whether to add more at the meeting.'],
    ['Maintenance window for your service', 'As your account manager I wanted to let you know about the maintenance window this Sunday from 1 to 3am. Your instance will be read-only during that time; no action is needed.'],
  ],
};

// Classifier 2.2 (issue #12, session 3): seven more pitch styles — other
// industries and motives (research interviews with an incentive, fractional
// executives, tax-credit and grant consultants, domain brokers, community and
// beta invitations, education and healthcare vendors) and more languages.
// Written after reading which 2.1 styles were weakest (named in
// docs/classifier.md) but before scoring any of these; no rule was changed
// for them. Emitted last so every earlier record stays byte-identical; the
// 2.1 cold recipe never trains on them (cold.ts).
const PITCH_22: Record<string, Core[]> = {
  research_interview: [
    ['30 minutes of your expertise?', 'We are researching how operations leaders choose warehouse software and would value your perspective. The interview takes 30 minutes over video and we send a 75 USD gift card as a thank-you. Would any slot next week work?'],
    ['Paid feedback session', 'I am part of the product team at Brightpath and we are looking for HR managers to give feedback on an early prototype. It is a paid 45-minute session, 100 EUR per participant. Can I send you the booking link?'],
    ['Survey for finance leaders', 'We are compiling our annual benchmark on accounts-payable automation. Could you spare eight minutes for the survey? Everyone who takes part gets the full report before it is published, plus a short call with our analysts to walk through your results.'],
    ['Your view on clinic software', 'Our team is building scheduling software for physiotherapy practices and we are speaking to owners before launch. Would you be open to a 20-minute chat? We will also give you six months free once we go live.'],
  ],
  fractional_exec: [
    ['Fractional CFO support', 'Many founders at your stage need senior finance help but not a full-time CFO. I work as a fractional CFO for three or four startups at a time, two days a month each: fundraising models, board reporting, cash planning. Would it help to compare notes?'],
    ['Part-time CTO for your roadmap', 'I have been the CTO of two SaaS companies and now help non-technical founders as a part-time CTO. I can review your architecture and hiring plan in a two-week engagement. Shall I send a short outline of how that works?'],
    ['Interim marketing lead', 'If your marketing role is still open, I can step in as an interim head of marketing for three to six months while you hire. I have done this for eleven B2B companies. Happy to share references.'],
    ['Operations help for your team', 'Scaling past 50 people tends to break processes that worked at 20. I am an operations consultant who embeds with leadership teams for a quarter to fix exactly that. Open to a short intro call?'],
  ],
  tax_grants: [
    ['R&D tax credit for your company', 'Companies that develop software in-house often qualify for R&D tax credits without knowing it. We reviewed public information about your team and believe you could reclaim a significant amount for the last two years. Our fee is only a share of what we recover.'],
    ['Funding you may be missing', 'There is a regional innovation grant covering up to 50% of digitalisation projects, and the current round closes in six weeks. We have a 90% success rate with applications. Would you like us to check your eligibility for free?'],
    ['Energy rebate check', 'Businesses of your size are currently eligible for an energy-efficiency rebate that most never claim. We handle the paperwork end to end and only get paid if the rebate comes through. Can we run a quick check for your sites?'],
    ['Lower your business rates', 'We specialise in appealing commercial property valuations. Based on your premises we think your rates may be too high. There is no cost unless we achieve a reduction. Interested?'],
  ],
  domain_broker: [
    ['Domain available: brightpath.io', 'I represent the owner of the domain brightpath.io, which closely matches your company name. It is available for acquisition now, and several parties have expressed interest. Let me know if you would like to receive the asking price.'],
    ['Premium domain for your brand', 'The exact-match domain for your product category has just come up for sale. Owning it could make your marketing much easier. I can hold it for you for 48 hours while you decide.'],
    ['Your .com is for sale', 'You are currently using a .co domain, but the .com version is owned by our client and could be transferred to you this week. Would you like details?'],
    ['Trademark and domain monitoring', 'We noticed three recently registered domains that look very similar to your brand, which is often the first step of a phishing campaign. Our monitoring service catches these early. Can I show you the report?'],
  ],
  community_invite: [
    ['Invite: private community for CTOs', 'I run a private community of 300 CTOs at growth-stage companies: monthly roundtables, a vetted vendor list and an active chat. Membership is by invitation and I think you would be a great addition. Want me to send an invite?'],
    ['Early access to our beta', 'We are opening our beta to a small group of design leaders and your team came to mind. Early users get lifetime pricing and a direct line to our founders. Should I add you to the list?'],
    ['Join our founders circle', 'Every quarter we bring together 20 founders in your industry for a day of workshops and dinner, sponsored by our firm. The next one is in Berlin on 12 September. Would you like to join?'],
    ['An invite to our Slack group', 'We host a Slack group for people working in e-commerce operations, around 4,000 members. Your posts on LinkedIn would fit right in, and we would love you to host an AMA once you are settled. Here is how to join.'],
  ],
  sector_vendor: [
    ['Classroom devices for next term', 'Schools in your district have been moving to our managed tablet programme, which includes devices, insurance and teacher training for one monthly fee per pupil. Could I arrange a visit before budgets close?'],
    ['Reducing missed appointments at your practice', 'Our patient-reminder service cut no-shows by 38% on average at dental and GP practices last year. It connects to your existing booking system in a day. May I send a short case study?'],
    ['Catering for your events', 'We cater corporate events from 20 to 500 guests, with vegan and allergen-free menus as standard. Several companies in your building already use us. Would you like our seasonal menu?'],
    ['Fleet telematics for your vans', 'Our telematics boxes help delivery companies cut fuel use by around 12% through route and driving insights. We can fit a trial unit in two of your vans free for a month. Who should I speak to?'],
  ],
  foreign_more: [
    ['Kort fråga', 'Hej {n}, vi hjälper e-handlare att sänka sina fraktkostnader med upp till 25 procent. Har du tid för ett kort samtal nästa vecka så berättar jag hur?'],
    ['ご提案のご連絡', '{n}様、突然のご連絡失礼いたします。弊社は中小企業向けの経費精算システムを提供しております。御社の業務効率化に貢献できると考え、ご連絡いたしました。来週15分ほどオンラインでご説明の機会をいただけないでしょうか。'],
    ['İş birliği teklifi', 'Merhaba {n}, dijital pazarlama ajansı olarak e-ticaret markalarının satışlarını artırmasına yardımcı oluyoruz. Size özel ücretsiz bir analiz hazırlayabiliriz. Uygun olduğunuz bir zaman var mı?'],
    ['Nabídka spolupráce', 'Dobrý den, naše firma nabízí účetní služby pro malé a střední podniky za výhodné ceny. Rádi vám připravíme nezávaznou nabídku. Můžeme si domluvit krátký telefonát?'],
  ],
};

// 2.3: the 2.2 report found pitches in a language the set had never seen
// caught 0 of 12 (Swedish, Japanese, Turkish, Czech: the screen's rules are
// English and the model had no words of them). These styles add pitches AND
// transactional mail in those and other languages (so "not English" does not
// become the cold signal), two styles of each so that holding one out still
// leaves the other's words in training. Written for this set; nothing copied.
const PITCH_23: Record<string, Core[]> = {
  foreign_pitch_b2b: [
    ['Effektivare lagerhantering', 'Hej {n}! Vi har byggt ett lagersystem för grossister, och flera företag i er bransch har halverat sina plockfel med det. Skulle du vara intresserad av en kort demo på 20 minuter nästa vecka?'],
    ['採用活動のご支援について', '{n}様\n\n突然のメール失礼いたします。弊社は成果報酬型でエンジニア採用をご支援しております。貴社の採用活動のお役に立てると考え、ご連絡いたしました。ご興味がございましたら、30分ほどお時間をいただけますでしょうか。'],
    ['Web siteniz hakkında', 'Merhaba {n}, web sitenizi inceledik ve mobil hız puanının düşük olduğunu fark ettik. Ajansımız bunu iki hafta içinde düzeltebilir. Size ücretsiz bir rapor göndermemi ister misiniz?'],
    ['Úspora nákladů na energie', 'Dobrý den, zastupuji společnost EnergoPlus, která pomáhá výrobním firmám snížit účty za elektřinu až o 30 %. Mohl bych vám příští týden zavolat a ukázat konkrétní čísla pro váš provoz?'],
    ['Yhteistyöehdotus', 'Hei {n}, autamme verkkokauppoja kasvattamaan myyntiä sähköpostimarkkinoinnin avulla. Voisimmeko sopia lyhyen puhelun ensi viikolle? Lupaan, että se vie vain 15 minuuttia.'],
    ['Et hurtigt tilbud', 'Hej {n}, er det dig, der står for indkøb af kontorartikler hos jer? Vi leverer til over 500 danske virksomheder med fri fragt, og jeg vil gerne sende dig et uforpligtende tilbud.'],
    ['Gratis prøveperiode', 'Hei {n}! Vi har utviklet et timeregistreringsverktøy for byggebransjen og tilbyr nå 30 dagers gratis prøveperiode til utvalgte bedrifter. Har du tid til en rask prat denne uken?'],
    ['협업 제안드립니다', '{n}님 안녕하세요. 저희는 중소기업을 위한 클라우드 회계 솔루션을 제공하고 있습니다. 귀사의 업무 효율을 높이는 데 도움이 될 것 같아 연락드렸습니다. 다음 주에 20분 정도 온라인 미팅이 가능하실까요?'],
    ['合作机会', '{n}您好，冒昧打扰。我们是一家专业的跨境物流公司，为电商卖家提供欧洲海外仓服务，价格比同行低百分之十五。请问您最近方便通个电话吗？我可以给您发一份详细的报价。'],
    ['Ajánlatunk Önnek', 'Kedves {n}! Cégünk irodai takarítást vállal Budapesten, kedvező áron. Szívesen küldünk Önöknek egy ingyenes árajánlatot. Mikor lenne alkalmas egy rövid telefonbeszélgetés?'],
    ['Propunere de colaborare', 'Bună ziua, {n}! Suntem o agenție de marketing digital din Cluj și ajutăm magazinele online să își crească vânzările. V-ar interesa o analiză gratuită a site-ului dumneavoastră?'],
    ['Oferta dla Państwa firmy', 'Dzień dobry, nazywam się Marek i reprezentuję firmę produkującą opakowania kartonowe na zamówienie. Obsługujemy już ponad 300 sklepów internetowych. Czy mogę przesłać katalog i cennik?'],
  ],
  foreign_pitch_soft: [
    ['Inbjudan till frukostseminarium', 'Hej {n}, vi bjuder in ett fåtal ekonomichefer till ett frukostseminarium om AI i redovisningen den 12 mars i Stockholm. Vill du att jag reserverar en plats åt dig? Platserna är begränsade.'],
    ['ポッドキャスト出演のご依頼', '{n}様、はじめまして。スタートアップ経営者向けのポッドキャストを運営しております。ぜひゲストとしてご出演いただけないでしょうか。収録はオンラインで約40分です。'],
    ['Kariyer fırsatı', 'Merhaba {n}, İstanbul merkezli bir fintech şirketi için kıdemli yazılım geliştirici arıyoruz ve profiliniz çok ilgimi çekti. Şu an aktif olarak iş aramıyor olsanız bile kısa bir görüşme yapabilir miyiz?'],
    ['Krátký dotaz', 'Dobrý den, {n}, kdo u vás má na starosti výběr dodavatelů IT služeb? Rád bych mu poslal krátkou prezentaci o tom, jak pomáháme firmám vaší velikosti.'],
    ['Kutsu tapahtumaan', 'Hei {n}, järjestämme huhtikuussa Helsingissä kasvuyrittäjille suunnatun tapahtuman ja haluaisimme kutsua sinut paneeliin puhumaan. Kiinnostaisiko?'],
    ['Investering', 'Hej {n}, jeg er partner i en nordisk venturefond, der investerer i SaaS-virksomheder i tidlig fase. Jeg har fulgt jeres vækst og vil gerne høre mere om jeres planer. Har du tid til en kop kaffe?'],
    ['채용 관련 문의', '안녕하세요 {n}님, 헤드헌터 김민준입니다. 고객사인 글로벌 게임 회사에서 프로덕트 매니저를 찾고 있는데, {n}님의 경력이 잘 맞을 것 같습니다. 잠시 통화 가능하실까요?'],
    ['诚邀参加行业峰会', '{n}您好，我们将于下月在上海举办零售数字化峰会，诚邀您作为嘉宾出席。名额有限，如有兴趣请回复此邮件，我会为您预留席位。'],
    ['Szybkie pytanie', 'Cześć {n}, czy to Ty odpowiadasz za marketing w Waszej firmie? Pomagamy sklepom internetowym zbierać więcej opinii klientów i chętnie pokażę, jak to działa. Znajdziesz 15 minut w przyszłym tygodniu?'],
    ['Einladung in unseren Podcast', 'Hallo {n}, ich moderiere einen Podcast über Familienunternehmen im Mittelstand und würde Sie sehr gern als Gast einladen. Die Aufnahme dauert etwa 45 Minuten und findet online statt. Hätten Sie Interesse?'],
    ['Un échange rapide ?', 'Bonjour {n}, je vous écris car nous accompagnons des cabinets d’architectes dans la réponse aux appels d’offres publics. Auriez-vous quinze minutes la semaine prochaine pour en parler ?'],
    ['Ronda de inversión', 'Hola {n}, soy socia de un fondo de inversión en Madrid especializado en empresas agroalimentarias. Me gustaría saber si están pensando en levantar capital este año. ¿Podríamos hablar unos minutos?'],
  ],
};

const TRANSACTIONAL_23: Record<string, Core[]> = {
  foreign_tx_notices: [
    ['Din beställning har skickats', 'Hej {n}, din beställning 48213 har skickats och levereras inom 2–3 arbetsdagar. Spårningsnummer: SE4481920. Du kan följa paketet i appen.'],
    ['ご注文の確認', '{n}様\n\nこの度はご注文いただき誠にありがとうございます。ご注文番号20931の商品は3月14日に発送予定です。お届けまで今しばらくお待ちください。'],
    ['Faturanız hazır', 'Sayın {n}, şubat ayı faturanız oluşturuldu. Tutar: 349,90 TL. Son ödeme tarihi 15 Mart. Faturanızı ekte bulabilirsiniz.'],
    ['Potvrzení rezervace', 'Dobrý den, potvrzujeme vaši rezervaci stolu pro 4 osoby na pátek 18. 3. v 19:00. Pokud potřebujete rezervaci zrušit, odpovězte prosím na tento e-mail.'],
    ['Salasanan vaihto', 'Hei {n}, pyysit salasanan vaihtoa. Vaihda salasana sovelluksessa tunnin kuluessa. Jos et pyytänyt vaihtoa, voit jättää tämän viestin huomiotta.'],
    ['Kvittering for betaling', 'Hej {n}, tak for din betaling på 1.250 kr. for medlemskab i 2025. Kvitteringen er vedhæftet denne mail.'],
    ['예약 확인 안내', '{n}님, 3월 20일 오후 2시 진료 예약이 확정되었습니다. 변경이나 취소를 원하시면 하루 전까지 연락 주세요.'],
    ['您的订单已发货', '{n}您好，您的订单7730921已于今天发货，快递单号SF1029384756，预计两到三天送达，请注意查收。'],
    ['Ihre Rechnung für März', 'Guten Tag {n}, anbei erhalten Sie Ihre Rechnung Nr. 2025-0318 über 89,00 EUR. Der Betrag wird am 25. März von Ihrem Konto abgebucht.'],
    ['Votre rendez-vous est confirmé', 'Bonjour {n}, votre rendez-vous chez le Dr Martin est confirmé pour le mardi 11 mars à 10h30. Merci d’arriver dix minutes en avance.'],
    ['Tu contraseña ha cambiado', 'Hola {n}, la contraseña de tu cuenta se ha cambiado correctamente. Si no has sido tú, ponte en contacto con soporte de inmediato.'],
    ['Potwierdzenie zamówienia', 'Dzień dobry, dziękujemy za zamówienie nr 55120. Płatność została zaksięgowana, a paczka zostanie wysłana jutro rano.'],
  ],
  foreign_tx_work: [
    ['Re: Offert för takrenovering', 'Hej {n}, tack för offerten. Vi har gått igenom den med styrelsen och vill gå vidare. Kan ni börja i maj som ni skrev?'],
    ['Re: 打ち合わせ日程の件', '{n}さん\n\nご連絡ありがとうございます。来週の打ち合わせは水曜日の15時からでお願いできますでしょうか。資料は前日までにお送りします。'],
    ['Proje durumu', 'Merhaba {n}, tasarım dosyaları tamamlandı, yazılım ekibi çarşamba günü geliştirmeye başlıyor. Bir değişiklik olursa sizi hemen bilgilendiririm.'],
    ['Re: Dovolená v červenci', 'Ahoj {n}, schváleno. Dovolenou od 7. do 18. července jsem zapsal do systému. Předej prosím rozdělanou práci Petrovi.'],
    ['Palaveri siirtyy', 'Hei kaikki, torstain tiimipalaveri siirtyy perjantaille kello 10. Asialista pysyy samana.'],
    ['Re: Kontrakten', 'Hej {n}, jeg har læst kontrakten igennem og har kun to små rettelser i punkt 4. Jeg sender den underskrevne version i morgen.'],
    ['Re: 견적서 요청', '{n}님, 요청하신 견적서를 첨부드립니다. 지난번 통화에서 말씀하신 수량 기준으로 작성했습니다. 확인 후 회신 부탁드립니다.'],
    ['关于下周的培训', '各位同事好，下周二下午的安全培训改到三楼会议室举行，请大家准时参加。如有问题请联系人事部。'],
    ['Re: Angebot für die Webseite', 'Hallo {n}, vielen Dank für das Angebot nach unserem Telefonat. Zu Position 3 haben wir noch eine Frage und melden uns morgen bei Ihnen.'],
    ['Compte rendu de la réunion', 'Bonjour à tous, vous trouverez ci-joint le compte rendu de la réunion de lundi. Les prochaines étapes sont en page 2. Merci de me faire part de vos remarques avant vendredi.'],
    ['Re: Planning verhuizing', 'Hoi {n}, de verhuizers komen dinsdag om 8 uur. Kun jij de sleutels van het nieuwe kantoor ophalen?'],
    ['Aggiornamento cantiere', 'Ciao {n}, ti aggiorno: il cantiere è in anticipo di una settimana e il collaudo è previsto per il 20 aprile. Ti mando le foto domani.'],
  ],
};


// 2.6 (issue #12, session 6): more pitch styles — other industries, motives
// and openings (paid recognition and directory listings, wholesale and trade
// suppliers, facility and trade services, advertising and sponsorship asks,
// compliment-led openers, free offers, assets for sale, freelancers, creator
// and UGC offers, fundraising asks to strangers) and pitches in the
// languages of 2.3 — and transactional mail from the same industries and
// languages (a supplier's order confirmation, an exhibitor's booth
// assignment, an awards entry receipt, a trial that the recipient started,
// a domain renewal, work mail in other languages), so that "industry words"
// or "not English" never become the signal. Written in full before any of
// them was scored, after reading only which styles docs/classifier.md names
// as weak; no text copied from the held-out styles. Emitted last so every
// earlier record stays byte-identical; older cold recipes never train on them.
const PITCH_26: Record<string, Core[]> = {
  paid_recognition: [
    ['You made our Top 50 list', 'Our editorial team has selected your firm for the 2025 list of the Top 50 Engineering Consultancies in the Midlands. To appear in the printed edition with your logo and a 300-word profile, simply confirm your listing package by the end of the month.'],
    ['Shortlisted: Innovator of the Year', 'I am delighted to let you know that you have been shortlisted for Innovator of the Year in our small-business awards. Finalists are invited to the ceremony in Manchester; a finalist pack with two seats and a winners logo licence is 695 GBP.'],
    ['Featured listing in our directory', 'We are compiling the new edition of our supplier directory for the hospitality sector and would like to include your company. Premium listings appear at the top of search results and include a verified badge. Shall I reserve one for you?'],
    ['40 under 40 feature', 'Congratulations, a reader recommended you for our 40 under 40 feature on leaders in the regional economy. Featured leaders get a professional photo shoot and an interview in the magazine. There is a small contribution towards production costs. Would you like to take part?'],
    ['Your company in our annual review', 'Each year we publish an annual review of the best employers in the construction sector, distributed to 20,000 decision makers. We think your company deserves a place in it. May I send you the options for an editorial feature?'],
  ],
  trade_supplier: [
    ['Stainless steel fasteners', 'Good day, we are a factory producing stainless steel bolts, nuts and washers to DIN and ANSI standards. We ship to Europe every week and can offer prices around 10% below distributors. Please tell us which sizes you use and we will quote by return.'],
    ['Textiles for your collection', 'Hello, our mill in Porto weaves organic cotton and linen fabrics for fashion labels, with small minimums from 100 metres. I would be glad to post you a swatch book of our current season.'],
    ['Electronic components in stock', 'We are an independent distributor of electronic components with hard-to-find parts in stock, including obsolete microcontrollers. If you have a shortage list, send it over and we will check availability within 24 hours.'],
    ['Custom furniture manufacturing', 'Our workshop builds furniture for hotels and restaurants to your designs, from chairs to complete lobbies, delivered and installed across Europe. Could I send a few recent projects and an indicative price range?'],
    ['Industrial chemicals supply', 'We supply cleaning and process chemicals to food and beverage plants, with delivery in bulk containers and full safety documentation. Are you happy with your current supplier, or would a comparison quote be useful?'],
    ['Spare parts for your machines', 'We manufacture compatible spare parts for packaging machines at about half the price of original parts, with a 12-month warranty. Who is responsible for maintenance purchasing at your plant?'],
  ],
  facility_services: [
    ['Pest control for your premises', 'We look after pest control for restaurants and food shops in your area, with monthly visits and the reports your inspector asks for. I would be happy to come by for a free site survey this week.'],
    ['Keeping your office green', 'We install and care for office plants, from a few desk plants to living walls, and replace anything that does not thrive at no charge. Would you like some ideas and prices for your reception area?'],
    ['HVAC maintenance contract', 'Most commercial air-conditioning breakdowns happen in the first hot week of summer. Our maintenance contracts include two visits a year and priority call-outs. Could I send you a quote for your building?'],
    ['Security for your site', 'We provide trained security officers and mobile patrols for construction sites and warehouses. After the break-ins reported in your industrial park last month, I thought it might be worth a conversation.'],
    ['Waste collection that costs less', 'Businesses on your street are paying up to 30% less for waste and recycling collection since switching to us. I can prepare a comparison based on your current bins in five minutes.'],
  ],
  advertising_ask: [
    ['Advertise in our school yearbook', 'Our graduating class is putting together this year’s yearbook and we are offering local businesses a half-page advertisement for 150 USD. Every family in the school receives a copy. Would you like to support us?'],
    ['Exhibit at the Home & Garden Show', 'We still have a handful of stands at the Home & Garden Show in May, which welcomed 18,000 visitors last year. A corner stand would put your landscaping business right by the main entrance. Shall I hold one for you?'],
    ['Ad space in our newsletter', 'Our weekly newsletter for independent pharmacists goes to 9,000 readers with a 52% open rate. We have two sponsor slots left for the next quarter. Can I send you our rate card?'],
    ['Jersey sponsor for our club', 'Our youth football club is looking for a shirt sponsor for the coming season. Your logo would be on 120 jerseys worn every weekend across the county. The package starts at 1,000 EUR. Would that interest you?'],
    ['Table at our charity gala', 'We would love for your company to host a table at our winter gala in support of the city food bank. A table for ten includes dinner and a mention in the programme. May I send you the details?'],
  ],
  compliment_opener: [
    ['Your podcast episode', 'Just listened to your episode on hiring your first sales team and took pages of notes. It made me think of something: we built an interview-scoring tool that does exactly what you described doing by hand. Would you like to try it with your next hire?'],
    ['That LinkedIn post', 'Your post about burnout in customer support really resonated with our team. We make a scheduling tool that spreads difficult tickets fairly across agents. I would love to hear whether that would help your team.'],
    ['Beautiful shop', 'I walked past your new shop on Harbour Street and the window display is stunning. We design and print custom packaging for independent boutiques and I think we could make your bags just as memorable. Can I drop off some samples?'],
    ['Congrats on the award', 'Congratulations on winning the regional export award, well deserved. Companies growing abroad often struggle with foreign VAT filings, which is what we take care of. Happy to share how we helped two other winners.'],
    ['Impressive app', 'I have been using your app for a few weeks and love the onboarding. One thing I noticed is that the Android version is much slower to load. My team specialises in mobile performance; could I send you a short list of quick wins?'],
  ],
  free_offer: [
    ['Complimentary headshots for your team', 'We are a corporate photography studio and this month we are offering one company in your building complimentary headshots for up to ten people. If your team would like new profile photos, just reply and we will book a morning.'],
    ['First month on us', 'We run payroll for small agencies and would like to give you the first month free so you can see how much time it saves. No contract and no setup fee. Shall I send the sign-up link?'],
    ['We built a demo with your data', 'I took your public product catalogue and built a working demo of our visual search on it, so you can see how it would look on your site. It is ready to share. Want the link?'],
    ['Free energy audit', 'We are offering free energy audits to manufacturers in the region this spring. An engineer spends half a day on site and you receive a report with savings ranked by payback time. Would you like to book one?'],
    ['A trial seat for you', 'I have reserved a trial seat for you on our contract-analysis platform, valid for 30 days. It reads a contract in seconds and flags unusual clauses. Shall I activate it?'],
  ],
  asset_sale: [
    ['Social handle available', 'I own the Instagram and X handles that match your brand name exactly and am open to transferring them to you. They have been inactive for years, so there is no confusion for your customers. Would you like to make an offer?'],
    ['Used forklifts for sale', 'We are replacing our warehouse fleet and have six electric forklifts in good condition, fully serviced, available at a fraction of the new price. Would your company be interested in one or more?'],
    ['A business you might want to acquire', 'I am advising the owner of a profitable online retailer in your niche who is looking to sell. Annual revenue is around 2 million with a loyal customer base. Would you be interested in receiving the teaser under NDA?'],
    ['Office space next to yours', 'The unit next to your office on the second floor becomes available in June. If you are growing, it could be a simple way to expand without moving. I manage the letting; can I arrange a viewing?'],
    ['Patent portfolio for licensing', 'We hold a portfolio of patents on battery management that appears relevant to your product line. Our client is open to licensing or selling them. Could we schedule a short confidential call?'],
  ],
  freelancer: [
    ['Translation help', 'I am a freelance translator from German and French into English, specialising in technical manuals. I noticed your product documentation is only in English and German. If you are planning a French version, I would be glad to send a sample translation.'],
    ['Product photography', 'I am a product photographer working with online shops. Your products look great, but a few of the photos on your store are quite dark. I would be happy to reshoot three items for free so you can compare.'],
    ['Copywriting for your emails', 'I write marketing emails for software companies. Your newsletter has great content but the subject lines could work harder. Would you like me to rewrite one campaign as a free sample?'],
    ['Virtual assistant available', 'I am an experienced virtual assistant with availability for two new clients. I handle inboxes, calendars, travel and invoicing for busy founders. Could I tell you more about how I work?'],
    ['Video editing for your channel', 'I edit videos for YouTube creators and businesses, turnaround in 48 hours. I think your channel could grow faster with shorter edits. Mind if I send an example edit of your latest video?'],
  ],
  creator_offer: [
    ['UGC videos for your brand', 'I make user-generated-content videos for beauty and wellness brands: honest, unscripted reviews that you can use in your ads. I would love to create a package for your new face oil. Can I send my portfolio and rates?'],
    ['Review on my channel', 'I run a tech review channel with 85,000 subscribers and would like to feature your headphones in my next roundup. For a sponsored review my fee is 900 USD, including usage rights. Interested?'],
    ['Partnership with our food blog', 'Our recipe blog reaches two million home cooks a month. We create sponsored recipes that feature a brand’s products naturally. Your sauces would be perfect for our summer series. Shall I send the media kit?'],
    ['Creators for your launch', 'We are a creator agency with a network of 400 micro-influencers in fitness and outdoors. We can line up twenty creators for your launch in two weeks. Would you like to see a proposal?'],
  ],
  fundraising_ask: [
    ['Supporting young musicians', 'I am writing on behalf of the City Youth Orchestra, which gives free music lessons to 200 children. We are looking for local companies to become patrons this year. Would your company consider a donation of any size?'],
    ['Help us build the playground', 'Our parents association is raising money for a new playground at Elm Street Primary. Businesses who donate 500 USD or more get a plaque on the fence. Would you like to be part of it?'],
    ['Corporate partnership with our foundation', 'Our foundation plants trees with local communities. Many companies now offset their travel through us and receive a certificate and a page on our website. Could I send you our corporate partner brochure?'],
    ['Matching campaign', 'This month every donation to our animal shelter is matched by a generous donor. A gift from your team would go twice as far. Would you consider supporting us?'],
  ],
  foreign_pitch_services: [
    ['Fotografering av ert team', 'Hej {n}, vi är en fotostudio i Göteborg och erbjuder just nu företag i er bransch nya porträttbilder till hela teamet till ett introduktionspris. Får jag skicka några exempel och priser?'],
    ['オフィス清掃サービスのご案内', '{n}様\n\n突然のご連絡失礼いたします。弊社は都内のオフィス向けに定期清掃サービスを提供しております。初回の清掃を無料でお試しいただけるキャンペーンを実施中です。一度お見積りをお送りしてもよろしいでしょうか。'],
    ['Tedarikçi teklifi', 'Merhaba {n}, firmamız restoran ve oteller için endüstriyel mutfak ekipmanları üretmektedir. Güncel kataloğumuzu ve fiyat listemizi size göndermek isteriz. İlgilenir misiniz?'],
    ['Nabídka překladů', 'Dobrý den, jsem profesionální překladatelka z angličtiny a němčiny. Všimla jsem si, že váš e-shop zatím nemá českou verzi. Ráda vám připravím ukázkový překlad zdarma.'],
    ['Ilmoitus hakemistoon', 'Hei {n}, kokoamme uutta matkailualan yrityshakemistoa ja haluaisimme ottaa yrityksenne mukaan. Näkyvä premium-ilmoitus maksaa 290 euroa vuodessa. Saanko lähettää lisätietoja?'],
    ['Sponsorat til vores løb', 'Hej {n}, vi arrangerer et velgørenhedsløb i Aarhus til september og søger lokale virksomheder som sponsorer. Jeres logo kommer på alle startnumre. Må jeg sende sponsorpakkerne?'],
    ['광고 제휴 제안', '{n}님 안녕하세요. 저희는 구독자 12만 명의 요리 유튜브 채널을 운영하고 있습니다. 귀사의 주방용품을 소개하는 협찬 영상을 제작하고 싶어 연락드렸습니다. 제안서를 보내드려도 될까요?'],
    ['免费试用邀请', '{n}您好，我们是一家为餐饮企业提供智能排班系统的公司。现在为贵公司开放一个月的免费试用名额，无需任何费用。请问方便安排一次简短的线上演示吗？'],
    ['Kostenloser Energie-Check', 'Guten Tag {n}, wir bieten Handwerksbetrieben in Ihrer Region derzeit einen kostenlosen Energie-Check an. Ein Ingenieur kommt einen halben Tag vorbei und zeigt Ihnen, wo Sie sparen können. Darf ich einen Termin vorschlagen?'],
    ['Votre entreprise à l’honneur', 'Bonjour {n}, votre entreprise a été sélectionnée pour figurer dans notre guide annuel des meilleurs artisans de la région. Pour y apparaître avec votre logo et une présentation, il suffit de valider l’offre de parution avant la fin du mois.'],
    ['Venta de maquinaria', 'Hola {n}, estamos renovando nuestra planta y vendemos cuatro máquinas de envasado en perfecto estado a un precio muy por debajo del nuevo. ¿Le interesaría recibir fotos y la ficha técnica?'],
    ['Proposta di sponsorizzazione', 'Buongiorno {n}, la nostra squadra di pallavolo giovanile cerca uno sponsor per le maglie della prossima stagione. Il vostro marchio sarebbe visibile in tutte le partite della provincia. Posso inviarvi le proposte?'],
  ],
};

const TRANSACTIONAL_26: Record<string, Core[]> = {
  supplier_orders: [
    ['PO 4471 confirmed', 'We confirm receipt of purchase order 4471 for 2,000 M8 stainless bolts. Production is scheduled for next week and the goods ship on the 21st. The delivery note and certificate of conformity will follow with the shipment.'],
    ['Re: Quote for fabric order', 'Thanks for your order of 300 metres of the natural linen. As agreed, the swatches you approved are reserved for you; the invoice follows when the roll leaves the mill.'],
    ['Delivery delayed by two days', 'Your order of replacement seals for the packaging line is delayed by two days because of a customs check. New delivery date: Thursday. Sorry for the inconvenience.'],
    ['Requested price list', 'As you asked on the phone this morning, please find our current price list for cleaning chemicals attached. The prices for your usual products are unchanged from last quarter.'],
    ['Your service visit report', 'Our engineer completed the scheduled maintenance of your air-conditioning units today. Two filters were replaced; no faults were found. The report is attached and the next visit is due in October.'],
  ],
  exhibitor_sponsor: [
    ['Your stand number for the Home & Garden Show', 'Thank you for booking a stand. Your stand number is C14 in Hall 2. Build-up is on Thursday from 8am; the exhibitor manual with parking and delivery times is attached.'],
    ['Sponsor logo needed by Friday', 'Thanks again for sponsoring the youth club this season. To get the new jerseys printed in time, please send your logo as a vector file by Friday.'],
    ['Gala seating plan', 'Your table of ten at Saturday’s gala is table 7, next to the stage. Dinner is served at 7:30pm. Please send us any dietary requirements by Wednesday.'],
    ['Your ad in the yearbook', 'We received your artwork for the half-page yearbook advertisement and it looks great. The proof is attached; reply with OK or any corrections by Monday.'],
  ],
  awards_entrant: [
    ['Your award entry has been received', 'Thank you for submitting your entry to the Regional Business Awards in the category Sustainability. Entry number RBA-2291. The judges will announce the shortlist on 3 October.'],
    ['Results of the judging', 'Thank you for entering this year’s design awards. Unfortunately your entry was not shortlisted. Feedback from the judges is attached; we hope to see your work again next year.'],
    ['Ceremony tickets', 'As a finalist you have two tickets for the ceremony on 14 November. Your e-tickets are attached; please bring photo ID for entry.'],
    ['Invoice for your directory listing', 'Thank you for renewing your listing in the hospitality supplier directory. Invoice 2025-118 is attached; the listing runs until 31 December.'],
  ],
  trial_customer: [
    ['Your free trial ends in 3 days', 'Your 14-day trial of the payroll workspace ends on Friday. To keep your data and settings, choose a plan in billing. If you do nothing, the workspace becomes read-only.'],
    ['Pilot results', 'Attached are the results of the four-week pilot in your warehouse: picking distance fell by 12% on the two lines we measured. Let us discuss next steps at Tuesday’s review as planned.'],
    ['Your sample order has shipped', 'The sample pack you requested on our website has shipped and should arrive within three days. Tracking number: 00340434161094042557.'],
    ['Welcome to your trial', 'Thanks for starting a trial. Your workspace is ready and you are signed in as the admin. Invite your colleagues from the team settings page.'],
    ['Your energy audit report', 'Thank you for hosting our engineer on Tuesday. Your energy audit report is attached, with the measures ranked by payback time as discussed on site.'],
  ],
  domain_account: [
    ['Your domain renews in 30 days', 'The domain brightpath.io renews automatically on 12 April for 39 USD. Your card on file will be charged. To turn off auto-renewal, visit the domain settings.'],
    ['DNS change completed', 'The MX records for your domain were updated as requested at 14:02 UTC. Changes can take up to an hour to propagate.'],
    ['Transfer of your domain completed', 'The transfer of example-shop.com to your account is complete. The domain now uses your default nameservers.'],
    ['Social account verification', 'Your business account has been verified. The blue badge now appears on your profile. You can manage team access in settings.'],
  ],
  foreign_tx_orders: [
    ['Orderbekräftelse 7712', 'Hej {n}, tack för er order på 500 kartonger. Leveransen sker vecka 14 enligt överenskommelse. Fakturan skickas när godset har lämnat lagret.'],
    ['お見積りの送付', '{n}様\n\nお電話でご依頼いただいた清掃サービスのお見積書を添付いたします。ご不明な点がございましたら、お気軽にお問い合わせください。'],
    ['Siparişiniz yola çıktı', 'Merhaba {n}, 2231 numaralı siparişinizdeki mutfak ekipmanları bugün kargoya verildi. Teslimat 3 iş günü içinde yapılacaktır.'],
    ['Potvrzení objednávky překladu', 'Dobrý den, potvrzuji přijetí vaší objednávky překladu návodu k použití. Hotový překlad vám pošlu do pátku.'],
    ['Ilmoituksenne on julkaistu', 'Hei {n}, yrityksenne ilmoitus on nyt julkaistu hakemistossa. Lasku on tämän viestin liitteenä.'],
    ['Tak for jeres sponsorat', 'Hej {n}, tusind tak for jeres sponsorat af løbet. Logoet er sendt til trykkeriet, og startnumrene er klar i næste uge.'],
    ['주문 확인 안내', '{n}님, 주문하신 주방용품 세트가 결제 완료되었습니다. 내일 출고 예정이며 운송장 번호는 문자로 보내드리겠습니다.'],
    ['试用账号已开通', '{n}您好，您申请的排班系统试用账号已经开通，登录信息见下方。试用期为三十天，如有问题请随时联系我们。'],
    ['Ihr Termin für den Energie-Check', 'Guten Tag {n}, wie telefonisch vereinbart kommt unser Ingenieur am Dienstag um 9 Uhr für den Energie-Check zu Ihnen. Bitte sorgen Sie für Zugang zum Technikraum.'],
    ['Votre facture de parution', 'Bonjour {n}, vous trouverez ci-joint la facture de votre parution dans le guide annuel. Le règlement est attendu sous trente jours.'],
    ['Confirmación de entrega', 'Hola {n}, le confirmamos que las máquinas de envasado se entregarán el lunes por la mañana. El transportista le llamará una hora antes.'],
    ['Maglie pronte', 'Ciao {n}, le maglie con il vostro logo sono arrivate e le consegneremo sabato prima della partita. Grazie ancora per il sostegno.'],
  ],
};

// 2.6, fresh check: written after the screen rules of 2.6 were final (the
// closing question and the EXTRA_26 wordings were chosen while reading the
// misses of the styles above, so those styles no longer test the rules
// independently); these were scored once, in the run reported in
// docs/classifier.md, and nothing was changed after it. `check: true`.
const PITCH_26_CHECK: Record<string, Core[]> = {
  saas_expansion: [
    ['Onboarding new hires', 'Most HR teams we speak to still send new hires a dozen separate forms in their first week. Our onboarding portal bundles contracts, equipment requests and training into one checklist. Could I show you a five-minute walkthrough on Tuesday?'],
    ['Contracts taking too long?', 'Legal teams at companies your size tell us that sales contracts wait an average of nine days for review. Our contract-review assistant cuts that to two. I would be glad to run it on one of your templates for free.'],
    ['Expense reports', 'Chasing receipts at the end of every month is no fun for anyone. Our card-and-app combination captures them at the till and matches them automatically. Finance teams usually close two days faster. Worth a look?'],
    ['Your customer surveys', 'I see you run customer surveys through a basic form tool. Our platform turns the answers into themes and alerts you when a big account is unhappy. It takes an afternoon to set up.'],
  ],
  homeowner_services: [
    ['Roof check after the storm', 'After last week’s storm we have been repairing loose tiles on several roofs in your street. We are offering free roof inspections to neighbours while our team is in the area. Would Thursday morning suit you?'],
    ['New windows before winter', 'Our double-glazed windows cut heating bills by up to a quarter, and we are running our autumn installation programme in your postcode now. I could send a surveyor round for a free measurement.'],
    ['Driveway cleaning', 'We pressure-clean driveways and patios and will be working nearby next week. A typical driveway takes two hours and looks brand new afterwards. Shall I pencil you in?'],
    ['Your garden this spring', 'We are a small garden-design team and have a few slots left this spring for planting and lawn renovation. I would love to pop by and give you some ideas with a quote.'],
  ],
  media_partner: [
    ['Media partnership for your event', 'We publish the leading online magazine for renewable-energy professionals and would love to be a media partner for your summit. In exchange for logo placement we would promote the event to our 30,000 subscribers. Shall we discuss?'],
    ['Cover story opportunity', 'We are planning our spring issue around family-owned manufacturers and would like to feature your company on the cover. Cover features come with an advertising package that puts your brand in front of 15,000 buyers.'],
    ['Radio interview slot', 'Our business radio show has an interview slot open next month and your story would suit our listeners. Interview guests take a sponsored package that includes the broadcast and a podcast version.'],
    ['Your expertise in our report', 'We are writing a sector report on food safety technology and would like to quote you as an expert. Contributors can also include a profile page in the report at a preferential rate.'],
  ],
  logistics_offer: [
    ['Freight rates to Asia', 'We are a freight forwarder with weekly consolidations from Rotterdam to Shanghai and Singapore. Our rates are currently well below the market. If you send me your next shipment details I will quote by tomorrow.'],
    ['Warehousing in Poland', 'Our fulfilment centre near Poznań has space for 2,000 pallets and ships to all of Germany within 24 hours. Several online shops moved their stock to us this year to save on storage. Would a price comparison help?'],
    ['Same-day courier', 'We run a same-day courier service between the city and the airport, with vans and cargo bikes. Many law firms and labs in your area already use us. Can I set you up with an account?'],
    ['Refrigerated transport', 'We operate temperature-controlled trucks for food producers across the region, with live temperature monitoring on every load. I would welcome the chance to quote on your regular routes.'],
  ],
  consultancy_offer: [
    ['Sustainability reporting', 'New reporting rules will apply to companies your size from next year. We help mid-sized firms prepare their first sustainability report without hiring a dedicated team. Could we arrange a short call to see where you stand?'],
    ['Lean production workshop', 'We are lean-manufacturing consultants and have helped over 60 plants reduce changeover times by a third. I would like to offer your operations team a half-day workshop on site.'],
    ['Pricing review', 'Many subscription businesses leave 10 to 15 percent of revenue on the table through outdated pricing. We run a four-week pricing review with a guaranteed result. Is pricing on your agenda this year?'],
    ['Cyber insurance readiness', 'Insurers have tightened the requirements for cyber cover. We prepare companies for the insurer’s questionnaire and fix the gaps beforehand, which usually lowers the premium. Happy to explain how it works.'],
  ],
  foreign_pitch_check: [
    ['Frakt till Asien', 'Hej {n}, vi är en speditör med veckovisa samlastningar från Göteborg till Shanghai. Våra priser ligger just nu under marknaden. Skicka gärna uppgifter om nästa sändning så återkommer jag med en offert.'],
    ['人事システムのご紹介', '{n}様\n\n初めてご連絡いたします。弊社は従業員の入社手続きをまとめて管理できるシステムを提供しております。五分ほどのデモをご覧いただければ幸いです。'],
    ['Depo hizmeti', 'Merhaba {n}, İzmir’deki depomuzda 1.500 palet kapasitemiz var ve tüm Türkiye’ye 48 saat içinde gönderim yapıyoruz. Fiyat karşılaştırması yapmak ister misiniz?'],
    ['Udržitelnost a reporting', 'Dobrý den, od příštího roku se na firmy vaší velikosti vztahují nová pravidla reportingu. Pomáháme středním firmám připravit první zprávu o udržitelnosti. Mohli bychom si krátce zavolat?'],
    ['Kattotarkastus', 'Hei {n}, korjasimme viime viikon myrskyn jälkeen useita kattoja kadullanne. Tarjoamme naapureille ilmaisen kattotarkastuksen, kun tiimimme on alueella.'],
    ['Mediepartnerskab', 'Hej {n}, vi udgiver det største onlinemagasin for vedvarende energi i Danmark og vil gerne være mediepartner på jeres konference. Skal vi tage en snak om det?'],
    ['물류 서비스 제안', '{n}님 안녕하세요. 저희는 인천공항과 시내를 오가는 당일 배송 서비스를 운영하고 있습니다. 귀사에도 계정을 만들어 드려도 될까요?'],
    ['可持续发展报告咨询', '{n}您好，明年起新的报告规定将适用于贵公司这样规模的企业。我们专门帮助中型企业编制第一份可持续发展报告，希望能与您简单沟通一下。'],
    ['Kühltransporte für Ihre Produkte', 'Guten Tag {n}, wir betreiben temperaturgeführte Lkw für Lebensmittelhersteller in der ganzen Region, mit Live-Überwachung jeder Ladung. Gern erstelle ich Ihnen ein Angebot für Ihre regelmäßigen Touren.'],
    ['Atelier lean sur site', 'Bonjour {n}, nous sommes consultants en production lean et avons aidé plus de 60 usines à réduire leurs temps de changement de série. Je souhaiterais proposer à votre équipe un atelier d’une demi-journée sur site.'],
    ['Revisión de precios', 'Hola {n}, muchas empresas de suscripción pierden entre un 10 y un 15 % de ingresos por precios desactualizados. Hacemos una revisión de precios de cuatro semanas con resultado garantizado. ¿Está en su agenda este año?'],
    ['Pulizia vialetti', 'Buongiorno {n}, la prossima settimana lavoreremo nella sua zona con l’idropulitrice per vialetti e terrazze. Un vialetto tipico richiede due ore. Vuole che la inserisca in agenda?'],
  ],
};
const TRANSACTIONAL_26_CHECK: Record<string, Core[]> = {
  vendor_ops: [
    ['Booking confirmed: shipment 88120', 'Your shipment 88120 from Rotterdam to Singapore is booked on the consolidation leaving Friday. Please have the goods at our warehouse by Wednesday noon; the bill of lading follows on departure.'],
    ['Recap of our onboarding call', 'Thanks for the call today. As agreed, we will import your employee list on Monday and your HR team gets admin access on Tuesday. The training session is booked for Thursday at 10.'],
    ['Your inspection report', 'Thank you for letting us inspect your roof on Thursday. Two tiles were loose and have been fixed as agreed; the invoice and photos are attached.'],
    ['Workshop agenda for Tuesday', 'Ahead of Tuesday’s on-site workshop, here is the agenda we agreed with your plant manager. We start at 8:30 on the production floor; safety shoes are required.'],
  ],
  foreign_tx_check: [
    ['Bokning bekräftad', 'Hej {n}, er sändning 5512 till Shanghai är bokad på samlastningen som avgår på fredag. Godset behöver vara i vårt lager senast onsdag.'],
    ['研修日程のご案内', '{n}様\n\n先日はお打ち合わせありがとうございました。ご依頼の導入研修は来週木曜日の十時からで確定いたしました。'],
    ['Faturanız ektedir', 'Merhaba {n}, geçen ayki depolama hizmeti faturanız ektedir. Ödeme vadesi 30 gündür.'],
    ['Zápis z jednání', 'Dobrý den, posílám zápis z úterního jednání o zprávě o udržitelnosti. Další schůzka je domluvena na 14. dubna.'],
    ['Tarkastusraportti', 'Hei {n}, kiitos, että saimme tarkastaa katon torstaina. Kaksi irtonaista tiiltä korjattiin sovitusti, ja lasku on liitteenä.'],
    ['Program for konferencen', 'Hej {n}, her er det endelige program for konferencen. Registreringen åbner klokken 8.30, og frokost serveres i foyeren.'],
    ['배송 완료 안내', '{n}님, 요청하신 서류가 오늘 오후 3시에 공항 사무실로 배송 완료되었습니다. 수령인은 박지훈 님입니다.'],
    ['会议纪要', '各位好，附件是周二关于可持续发展报告的会议纪要。下次会议定于四月十四日上午十点。'],
    ['Ihre Tourenplanung', 'Guten Tag {n}, wie besprochen übernehmen wir ab dem 1. Mai die Kühltransporte auf Ihren beiden Touren. Die Fahrer melden sich jeweils eine Stunde vor Ankunft.'],
    ['Votre devis signé', 'Bonjour {n}, nous avons bien reçu le devis signé pour l’atelier. La date du 12 juin est confirmée.'],
    ['Resultados de la revisión', 'Hola {n}, adjunto el informe final de la revisión de precios que acordamos en marzo. Lo comentamos en la reunión del jueves.'],
    ['Conferma appuntamento', 'Buongiorno {n}, confermiamo la pulizia del vialetto per martedì alle 9. Le chiediamo di spostare l’auto la sera prima.'],
  ],
};

interface Rec { id: string; group: string; style: string; label: 0 | 1; kind: string; lang: string; subject: string; text: string; isReply: boolean; to: number; since?: string; check?: true }
const out: Rec[] = [];
let id = 0;
const GREET = ['Hi {n},', 'Hello {n},', 'Dear {n},', 'Hey {n},', '{n},'];
const SIGN_P = ['Best,\n{me}', 'Cheers,\n{me}', 'Kind regards,\n{me}', 'Thanks,\n{me}', 'All the best,\n{me}'];
const SIGN_T = ['Thanks,\n{me}', 'Best regards,\n{me}', '— {me}', 'Regards,\n{me}'];
const fill = (s: string, n: string, me: string) => s.replace(/\{n\}/g, n).replace(/\{me\}/g, me);

// 2.13 (issue #12, session 12): training styles for the two gaps of 2.12 —
// pretexts (a cold pitch dressed as a reply, an order, an invoice or an
// account notice; and the genuine mail those dress up as) and pitches in
// other languages, written from goals (a meeting, a trial, a supplier, a
// recruiter, an event, an agency …) in 19 languages, with transactional
// mail in the same languages (invoices, shipping, replies, follow-ups of a
// real meeting) so that neither "not English" nor an order word becomes the
// signal. Written after the fresh check above was committed, before any
// 2.13 rule; no text shared with it. Emitted after it so that it stays
// byte-identical.
const PITCH_213: Record<string, Core13[]> = {
  pretext_pitch: [
    ['Re: your question', 'Sorry for the slow reply! To answer your question: yes, we work with logistics companies of every size. Our route-planning software cuts fuel costs by around 15% in the first quarter. Can I book you in for a 20-minute walkthrough this week?'],
    ['Order confirmation #55102', 'Your order is almost complete: claim your free trial of our bookkeeping app before Friday and get three months at half price. Thousands of freelancers already trust us with their taxes. Click below to activate it.'],
    ['Re: invoice', 'Quick follow-up on the invoice topic. We help finance teams get paid 20 days faster by automating reminders for overdue invoices. Would you be open to a short call to see if it fits your process?'],
    ['Your delivery is on its way', 'Your delivery is on its way! Did you know we also offer office fruit boxes and snacks for teams? Companies like yours have boosted morale with weekly deliveries. Reply to this email for a free trial box.'],
    ['Fwd: introduction', 'Forwarding my note from last week in case it got lost. I run a small agency that builds Shopify stores for fashion brands, and I think we could double your conversion rate. Are you free for a call on Thursday?'],
    ['Account notice: action recommended', 'We noticed your website has no cookie banner that meets the new rules. Our compliance plugin fixes this in five minutes and protects you from fines. Would you like a free scan of your site?'],
    ['Re: following up', 'Following up on my previous message. Our recruiting platform has helped 300 startups hire engineers in under 30 days. Who would be the right person to talk to about your hiring plans?'],
    ['Your subscription', 'Is your team still paying for three separate tools for chat, video and file sharing? We bring all three together for less than the price of one. I would love to show you a quick demo, are you free on Monday?'],
  ],
  foreign_pitch_goals: [
    ['Kennenlernen', 'Hallo {n}, wir sind eine Agentur für Suchmaschinenoptimierung aus Köln und betreuen über 80 Handwerksbetriebe. Ihre Webseite hat großes Potenzial. Darf ich Ihnen unverbindlich eine kostenlose Analyse schicken?'],
    ['Découvrez notre solution', 'Bonjour {n}, notre logiciel de planification aide les restaurants à réduire de 20 % le temps consacré aux plannings. Seriez-vous intéressé par une démonstration gratuite de 20 minutes ?'],
    ['Oportunidad para su empresa', 'Buenos días, {n}. Somos una empresa de traducción especializada en textos técnicos y trabajamos con más de 150 fabricantes. ¿Podría enviarle nuestras tarifas sin compromiso?'],
    ['Proposta di collaborazione', 'Gentile {n}, sono Marco della Digitalia, agenzia specializzata in campagne social per hotel. Mi piacerebbe mostrarle come abbiamo aumentato le prenotazioni dirette dei nostri clienti del 35 %. Ha dieci minuti questa settimana?'],
    ['Apresentação rápida', 'Olá {n}, tudo bem? A nossa plataforma ajuda clínicas a reduzir faltas às consultas com lembretes automáticos por SMS. Posso mostrar-lhe como funciona numa chamada rápida de 15 minutos?'],
    ['Even voorstellen', 'Hallo {n}, wij leveren ergonomische bureaustoelen aan meer dan 400 Nederlandse bedrijven. Graag kom ik vrijblijvend langs met een paar modellen om uit te proberen. Schikt volgende week?'],
    ['Współpraca', 'Dzień dobry {n}, prowadzimy biuro rachunkowe specjalizujące się w obsłudze firm IT. Chętnie przygotujemy dla Państwa bezpłatną wycenę. Czy mogę zadzwonić w przyszłym tygodniu?'],
    ['Ett erbjudande till er', 'Hej {n}, vi hjälper byggföretag att digitalisera sina egenkontroller och spara flera timmar i veckan. Vill du se en kostnadsfri demo på 20 minuter?'],
    ['Tilbud på rengøring', 'Hej {n}, vi er et rengøringsfirma i Aarhus og gør rent for over 60 kontorer. Jeg vil gerne give jer et uforpligtende tilbud. Hvornår passer det at jeg ringer?'],
    ['Rekrutteringshjelp', 'Hei {n}, jeg er rekrutterer og jobber med flere norske teknologiselskaper som leter etter erfarne utviklere. Har du tid til en uforpliktende prat?'],
    ['Yhteistyö', 'Hei {n}, olemme suomalainen ohjelmistotalo ja autamme kiinteistöyhtiöitä digitalisoimaan huoltopyynnöt. Sopisiko lyhyt esittely ensi viikolla?'],
    ['Nabídka spolupráce', 'Dobrý den, {n}, jsme marketingová agentura z Brna a pomáháme e-shopům zvýšit prodeje. Rádi bychom vám nabídli bezplatnou konzultaci. Máte příští týden chvilku?'],
    ['Ajánlat', 'Kedves {n}! Cégünk vállalati flottakezelési szoftvert fejleszt, amellyel akár 20 % üzemanyag is megtakarítható. Szívesen bemutatnám egy rövid online megbeszélésen. Megfelelne a jövő hét?'],
    ['Ofertă', 'Bună ziua, {n}! Oferim servicii de contabilitate pentru firme mici și mijlocii la prețuri avantajoase. V-ar interesa o ofertă personalizată, fără obligații?'],
    ['Size özel teklif', 'Merhaba {n}, şirketimiz ofisler için kahve makinesi kiralama hizmeti sunuyor. İlk ay ücretsiz deneme fırsatı var. Sizi arayıp detayları anlatabilir miyim?'],
    ['業務効率化のご提案', '{n}様\n\n突然のご連絡失礼いたします。弊社は中小企業向けに勤怠管理クラウドを提供しております。無料トライアルもございますので、ぜひ一度ご検討いただけますと幸いです。'],
    ['招聘服务介绍', '{n}您好，冒昧打扰。我们是一家专注于互联网行业的猎头公司，已经为两百多家企业推荐技术人才。请问贵司近期有招聘需求吗？方便的话我们可以约个时间电话沟通。'],
    ['마케팅 제안드립니다', '{n}님 안녕하세요, 처음 연락드립니다. 저희는 인스타그램 광고 대행사로, 카페와 음식점의 매출을 높이는 데 도움을 드리고 있습니다. 무료 상담을 받아 보시겠어요?'],
    ['Предложение для вашей компании', 'Добрый день, {n}! Наша компания занимается разработкой мобильных приложений для ресторанов. Мы уже помогли 50 заведениям увеличить число заказов. Могу ли я прислать вам презентацию?'],
  ],
  foreign_pitch_pretext: [
    ['AW: Rechnung März', 'Hallo {n}, zahlen Sie noch zu viel für Ihre Telefonanlage? Unsere Kunden sparen im Schnitt 30 % mit unserer Cloud-Lösung. Gern zeige ich Ihnen in 15 Minuten, wie das geht. Wann passt es Ihnen?'],
    ['RE : notre échange', 'Bonjour {n}, suite à mon précédent message : nous aidons les PME à recruter des commerciaux en moins de trois semaines. Avez-vous un moment cette semaine pour en discuter ?'],
    ['Su pedido n.º 7731', 'Hola {n}, ¿sabía que puede ahorrar hasta un 25 % en sus envíos? Nuestra plataforma compara transportistas en tiempo real. Le ofrezco una prueba gratuita de un mes. ¿Le interesa?'],
    ['R: Preventivo', 'Buongiorno {n}, le scrivo per presentarle il nostro servizio di consulenza per i bandi regionali: i nostri clienti hanno ottenuto oltre 2 milioni di euro di contributi. Possiamo sentirci per una breve chiamata?'],
    ['Fatura disponível', 'Olá {n}, antes de pagar a próxima fatura de energia, saiba que podemos reduzir o seu consumo em até 30 % com painéis solares. Quer receber uma simulação gratuita?'],
    ['Re: Afspraak', 'Hallo {n}, ik stuur je nog even een berichtje over onze cursus timemanagement voor leidinggevenden. Er zijn nog drie plekken vrij in maart. Zal ik er een voor je reserveren?'],
    ['SV: Offert', 'Hej {n}, jag ville bara följa upp mitt tidigare mejl. Vi erbjuder IT-support för småföretag till ett fast månadspris. Har du tid för ett kort samtal nästa vecka?'],
    ['Odp: Faktura', 'Dzień dobry {n}, czy Państwa firma korzysta już z elektronicznego obiegu faktur? Nasz system oszczędza księgowości kilkanaście godzin miesięcznie. Chętnie pokażę go podczas krótkiej prezentacji online.'],
    ['Re: お見積りの件', '{n}様\n\nはじめまして。Webマーケティング支援を行っている株式会社グロースの田中と申します。貴社サイトのアクセス数を増やすご提案をさせていただきたく、ご連絡いたしました。15分ほどお時間をいただけないでしょうか。'],
    ['回复：合作事宜', '{n}您好，我是鼎信科技的销售经理，我们为制造企业提供智能仓储系统，可以帮助贵司降低百分之二十的库存成本。请问本周是否方便安排一次线上演示？'],
    ['RE: 문의하신 내용', '{n}님 안녕하세요. 저희는 기업 전용 복지몰을 운영하고 있으며, 직원 만족도를 높이는 데 도움을 드리고 있습니다. 자세한 소개 자료를 보내드려도 될까요?'],
    ['Re: Заказ', 'Здравствуйте, {n}! Хочу предложить вам услуги нашей бухгалтерской компании: ведём учёт для малого бизнеса по фиксированной цене. Когда вам удобно созвониться?'],
  ],
};
const TRANSACTIONAL_213: Record<string, Core13[]> = {
  pretext_tx: [
    ['Re: your question', 'Sorry for the slow reply! To answer your question: yes, the export includes archived projects too. Go to Settings, then Data, and tick "include archived". Let me know if it does not show up.', true],
    ['Order confirmation #55102', 'Thank you for your order #55102: one standing desk frame and one oak top. Payment received. We will email you the tracking number when it ships, usually within two working days.', false],
    ['Re: invoice', 'Thanks for flagging the VAT number on invoice 2207. I have reissued it with the corrected number; the new copy is attached and the old one is cancelled.', true],
    ['Your delivery is on its way', 'Your delivery of 12 boxes of printer paper is on its way and will arrive tomorrow between 8 and 12. The driver will call 30 minutes before arrival. Tracking number: 55019283.', false],
    ['Following up on our meeting', 'Thanks for meeting with us on Tuesday. As agreed, here is the revised quote with the extra training day included. If it works for you, we can start on the 3rd; shall we set up a quick call to confirm?', false],
    ['Account notice: action required', 'The card on file for your account expires at the end of this month. To avoid an interruption of your service, please update your payment details in the billing settings.', false],
    ['Re: following up', 'Thanks for following up. We discussed your application internally and would like to invite you to a second interview on Thursday at 10am. Does that time work for you?', true],
    ['Your subscription renews soon', 'Your team subscription renews on 1 April for 12 seats at 8 EUR per seat. If you want to add or remove seats before then, you can do it in the admin settings.', false],
  ],
  foreign_tx_lookalike: [
    ['Rechnung Nr. 2025-0441', 'Guten Tag {n}, anbei erhalten Sie die Rechnung Nr. 2025-0441 für die Wartung Ihrer Heizungsanlage. Bitte überweisen Sie den Betrag innerhalb von 14 Tagen.', false],
    ['RE : notre échange', 'Bonjour {n}, merci pour votre retour. Je vous confirme la livraison des meubles le jeudi 14 entre 8 h et 12 h. Pouvez-vous nous indiquer le code d’accès de l’immeuble ?', true],
    ['Su pedido n.º 7731', 'Hola {n}, su pedido n.º 7731 ya está preparado y saldrá hoy de nuestro almacén. Recibirá un SMS con el número de seguimiento.', false],
    ['R: Preventivo', 'Buongiorno {n}, grazie per la risposta. Come concordato, le invio il preventivo aggiornato con lo sconto del 10 %. Resto a disposizione per qualsiasi domanda.', true],
    ['Fatura disponível', 'Olá {n}, a sua fatura de março no valor de 42,90 € já está disponível na área de cliente. O pagamento será debitado no dia 20.', false],
    ['Re: Afspraak', 'Hallo {n}, prima, dan zie ik je donderdag om 14.00 uur op kantoor. Ik neem de tekeningen mee.', true],
    ['SV: Offert', 'Hej {n}, tack för beskedet. Vi skickar avtalet för underskrift i morgon och kan påbörja arbetet den 1 april som vi sa i telefon.', true],
    ['Odp: Faktura', 'Dzień dobry, dziękuję za informację. Poprawioną fakturę wyślę jeszcze dziś, z właściwym numerem NIP.', true],
    ['Re: お見積りの件', '{n}様\n\nお世話になっております。先日ご依頼いただいたお見積書を添付いたします。ご確認のほどよろしくお願いいたします。', true],
    ['回复：合作事宜', '{n}您好，合同我们已经签好，扫描件见附件。原件明天寄出，请注意查收。', true],
    ['RE: 문의하신 내용', '{n}님, 문의하신 배송 일정은 다음 주 화요일로 확정되었습니다. 변경이 필요하시면 회신 부탁드립니다.', true],
    ['Re: Заказ', 'Здравствуйте, {n}! Спасибо за заказ. Счёт на оплату во вложении, после оплаты отправим товар в течение двух дней.', true],
    ['Kiitos tilauksestasi', 'Hei {n}, tilauksesi 8812 on vastaanotettu ja toimitetaan kolmen arkipäivän kuluessa. Lähetämme seurantakoodin tekstiviestillä.', false],
    ['Sipariş onayı', 'Merhaba {n}, 4410 numaralı siparişiniz onaylandı. Ürünleriniz yarın kargoya verilecek, takip numarası SMS ile gönderilecektir.', false],
  ],
  foreign_tx_followups: [
    ['Nach unserem Termin', 'Hallo {n}, danke für das gute Gespräch heute. Wie besprochen schicke ich Ihnen das Angebot für die zweite Ausbaustufe. Sollen wir nächste Woche kurz telefonieren, um offene Fragen zu klären?', false],
    ['Suite à notre rendez-vous', 'Bonjour {n}, merci pour votre accueil ce matin. Comme convenu, vous trouverez ci-joint notre proposition pour la rénovation des bureaux. Je vous rappelle jeudi pour en parler.', false],
    ['Tras nuestra reunión', 'Hola {n}, gracias por la reunión de ayer. Le adjunto el presupuesto revisado con las tres opciones que comentamos. ¿Podemos hablar el viernes para cerrar la fecha de inicio?', false],
    ['Dopo la riunione', 'Ciao {n}, grazie per l’incontro di oggi. Ti mando il riepilogo dei punti che abbiamo deciso e la bozza del contratto. Ci sentiamo lunedì?', false],
    ['Na nossa conversa', 'Olá {n}, obrigada pela chamada de hoje. Segue em anexo o orçamento para a formação da equipa, como pediu. Diga-me se precisa de mais alguma informação.', false],
    ['Na ons gesprek', 'Beste {n}, bedankt voor het prettige gesprek van vanochtend. Zoals afgesproken stuur ik je de offerte voor het onderhoudscontract. Zullen we volgende week even bellen?', false],
    ['Po naszym spotkaniu', 'Dzień dobry {n}, dziękuję za wczorajsze spotkanie. Zgodnie z ustaleniami przesyłam harmonogram wdrożenia. Czy możemy porozmawiać w środę?', false],
    ['Efter vårt möte', 'Hej {n}, tack för mötet i dag. Som vi kom överens om skickar jag offerten för utbildningen. Hör av dig om något är oklart.', false],
    ['打ち合わせのお礼', '{n}様\n\n本日はお打ち合わせのお時間をいただき、ありがとうございました。お話しした内容をもとに、お見積書を作成いたしました。ご確認をお願いいたします。', false],
    ['会议后续', '{n}您好，感谢今天的会议。按照会上讨论的内容，我把修改后的方案发给您，请查收。下周二我们再电话确认细节。', false],
    ['미팅 감사드립니다', '{n}님, 오늘 미팅 감사드립니다. 말씀드린 대로 수정된 제안서를 첨부드립니다. 검토 후 의견 주시면 반영하겠습니다.', false],
    ['После нашей встречи', 'Здравствуйте, {n}! Спасибо за встречу. Как договорились, направляю коммерческое предложение с учётом ваших замечаний. Созвонимся в четверг?', false],
  ],
};

function emit(label: 0 | 1, style: string, cores: Core13[], variants: number, since?: string, check = false): void {
  cores.forEach(([subject, body, reply], ci) => {
    for (let v = 0; v < variants; v++) {
      const n = pick(FIRST);
      const me = pick(SENDER);
      const foreign = style.startsWith('foreign');
      const greet = foreign || /^(hi|hello|dear)/i.test(body) ? '' : fill(pick(GREET), n, me) + '\n\n';
      const sign = fill(pick(label ? SIGN_P : SIGN_T), n, me);
      const text = greet + fill(body, n, me) + '\n\n' + (foreign ? me : sign);
      const isReply = reply ?? /^re:/i.test(subject);
      out.push({ id: `s${String(++id).padStart(4, '0')}`, group: `${style}/${ci}`, style, label, kind: label ? 'cold_pitch' : 'transactional', lang: foreign ? 'xx' : 'en', subject: fill(subject, n, me), text, isReply: label ? false : isReply, to: 1, ...(since ? { since } : {}), ...(check ? { check: true as const } : {}) });
    }
  });
}
// 2.13 (issue #12, session 12), FRESH CHECK: written at 21:50 UTC on
// 2026-12-06, before any rule or model of 2.13 was changed, and committed
// before any of it was scored. Never trained on (cold.ts: `check` styles of
// 2.13 are left out of every training set); printed only by
// `eval-classifier.ts --only cold --fresh`. English pretexts (a pitch dressed
// as a reply, an invoice, an order notice, a payment or account message) and
// the genuine mail that looks like them; pitches and transactional mail in 13
// languages (Russian is new to the set). The third element of a core says
// whether the message is sent in an existing thread (the send path's
// `isReply`: threading headers, a reply or forward route); a pitch never is.
type Core13 = [string, string, boolean?];
const PITCH_213_CHECK: Record<string, Core13[]> = {
  pretext_check: [
    ['Re: our call', 'Following up on our call — as promised, here is a bit more about us. Brightlane builds AI note-takers for sales teams, and our customers save about five hours a week per rep. Do you have 15 minutes on Thursday to see a demo?'],
    ['Invoice #4411', 'Before you pay your next software invoice: most teams your size overpay for seats nobody uses. Our licence audit finds the waste in a day, and we only charge a share of what you save. Want me to run it for you?'],
    ['Your order has shipped', 'Your order has shipped! While you wait: we help online stores cut their delivery costs by up to 30% with smarter carrier selection. Book a 20-minute demo and we will show you the savings on your own shipments.'],
    ['Re: Proposal', 'As discussed, I am sending over the details. We are a staffing agency specialising in warehouse staff; we fill temporary positions within 48 hours and our clients typically save 20% on agency fees. When would be a good time to talk?'],
    ['Fwd: pricing', 'Forwarding this in case it is useful to you. We recently launched a payroll service for companies with 10 to 50 employees at a flat 6 euros per person per month. Happy to set you up with a free month — shall I send the sign-up link?'],
    ['Payment confirmation', 'Thank you for your interest! Confirm your place in our growth accelerator: eight weeks of coaching for founders, with 40% off for the first ten sign-ups. Reply YES and I will hold a seat for you.'],
    ['Your account review', 'I was looking at your company’s Google reviews and noticed a few unanswered complaints. Our reputation service replies to every review within a day and lifts your rating. Could I show you how it works in a short call?'],
    ['Re: Meeting next week', 'Hi again, just making sure this did not get buried. I would love to find 20 minutes to show you how our scheduling tool cuts no-shows for physiotherapy clinics. Does Tuesday or Wednesday work?'],
  ],
  foreign_pitch_check13: [
    ['AW: Ihre Anfrage', 'Guten Tag {n}, mein Name ist Jonas Berger von Lagerwerk. Wir digitalisieren die Lagerverwaltung für mittelständische Händler und senken die Inventurkosten um bis zu 40 %. Hätten Sie nächste Woche 20 Minuten für eine kurze Vorstellung?'],
    ['Facture n° 2291', 'Bonjour {n}, votre facture de télécommunications est probablement trop élevée : nos clients économisent en moyenne 28 % en changeant d’opérateur. Je peux vous envoyer une simulation gratuite sous 48 heures, sans engagement.'],
    ['Propuesta para su clínica', 'Hola {n}: ayudamos a clínicas dentales a llenar su agenda con pacientes nuevos mediante campañas locales. Este mes ofrecemos un diagnóstico de su presencia online sin coste. ¿Le parece bien que le llame el jueves?'],
    ['Fornitura di caffè per il vostro ufficio', 'Buongiorno {n}, siamo una torrefazione artigianale di Torino e forniamo macchine e caffè in comodato d’uso a oltre 200 uffici. Posso passare la prossima settimana per farvi assaggiare le nostre miscele?'],
    ['Re: Reunião', 'Olá {n}, sou consultora da Faturix e trabalho com escritórios de contabilidade que querem automatizar a emissão de notas fiscais. Poderíamos agendar uma conversa de 15 minutos esta semana?'],
    ['Samenwerking?', 'Beste {n}, wij zijn een klein videobureau uit Utrecht en maken bedrijfsfilms voor technische bedrijven. Ik zag jullie nieuwe product op LinkedIn en denk dat een korte uitlegvideo veel zou opleveren. Zal ik een paar voorbeelden sturen?'],
    ['Zamówienie nr 1188', 'Dzień dobry {n}, dziękujemy za zainteresowanie naszą ofertą. Przygotowaliśmy dla Państwa firmy specjalne warunki na dostawy materiałów biurowych: 20 % rabatu na pierwsze zamówienie i darmową dostawę. Czy mogę jutro zadzwonić, aby omówić szczegóły?'],
    ['Snabb fråga', 'Hej {n}! Är det du som ansvarar för personalförmåner hos er? Vi erbjuder friskvårdsbidrag via en app som redan används av 900 svenska arbetsgivare. Har du en kvart över nästa vecka?'],
    ['Re: ご相談の件', '{n}様\n\n突然のご連絡失礼いたします。株式会社ネクストリンクの佐藤と申します。弊社では法人向けに経費精算システムを提供しており、導入企業では月末の作業時間が半分になっております。一度オンラインでご説明のお時間をいただけないでしょうか。'],
    ['关于贵司的网站', '{n}您好，冒昧打扰。我们是一家专注于外贸网站优化的公司，可以帮助贵司在谷歌上获得更多海外询盘。本月为新客户提供免费的网站诊断报告，请问需要我发一份给您吗？'],
    ['[안내] 주문하신 상품 관련', '{n}님 안녕하세요. 저희는 온라인 쇼핑몰 운영자를 위한 재고 관리 솔루션을 제공하는 회사입니다. 지금 가입하시면 3개월 동안 무료로 이용하실 수 있습니다. 편하신 시간에 짧게 소개해 드려도 될까요?'],
    ['İş birliği teklifi', 'Merhaba {n}, Ankara’da kurumsal etkinlikler için catering hizmeti veriyoruz. Önümüzdeki dönemde planladığınız toplantılar için size özel bir teklif hazırlamak isteriz. Uygun olduğunuz bir zamanda kısa bir görüşme yapabilir miyiz?'],
    ['Предложение о сотрудничестве', 'Здравствуйте, {n}! Меня зовут Ольга, я представляю кадровое агентство. Мы помогаем IT-компаниям закрывать вакансии разработчиков за две недели. Удобно ли вам созвониться на 15 минут на этой неделе?'],
  ],
};
const TRANSACTIONAL_213_CHECK: Record<string, Core13[]> = {
  lookalike_check: [
    ['Re: our call', 'Thanks again for your time today. As promised, the proposal for the warehouse pilot is attached; it covers the two lines we walked through. Could we book 30 minutes next week to go over the pricing with your finance lead?', true],
    ['Invoice #4411', 'Please find attached invoice #4411 for the October retainer, 3,200 EUR, due on 30 November. Bank details are on the invoice. Let me know if your accounts team needs a PO number on it.', false],
    ['Your order has shipped', 'Your order #20391 (2 x ergonomic chair) has shipped with DHL and should arrive on Wednesday. Tracking number: 1Z88A0W2. Need help with assembly? Our team can walk you through it on a short video call; just reply to this email.', false],
    ['Following up from the packaging fair', 'It was good to meet you at the packaging fair on Thursday. As promised, here are the specs and prices for the compostable trays we looked at on the stand. If you want samples for your production trial, tell me the quantity and I will ship them this week.', false],
    ['Fwd: pricing', 'Forwarding the pricing our vendor sent this morning, as you asked. The per-seat price drops above 50 seats; I think we should ask them for a two-year deal. Can we discuss tomorrow?', true],
    ['Payment confirmation', 'Thank you for your payment of 149.00 USD for the annual Pro plan. Receipt number R-55120. Your plan renews on 4 March next year; you can change or cancel it in the billing settings.', false],
    ['Your account review', 'As part of the annual account review, your workspace now has the Business plan limits you agreed with your account manager. Nothing changes for your users. If you have questions, Priya is available for a call any day this week.', false],
    ['Re: Meeting next week', 'Tuesday at 2pm works for us. I will bring the revised floor plan and the quote for the extra sockets. Could you send me the parking details?', true],
    ['Re: your enquiry', 'Thanks for your enquiry through our website about catering for 80 guests on 12 June. Our quote is attached: three menus, drinks included. If you would like to taste the menus first, we can book you in for a tasting on a weekday evening.', false],
  ],
  foreign_tx_check13: [
    ['AW: Angebot Lagerregale', 'Hallo {n}, danke für die schnelle Rückmeldung. Wir nehmen die Variante mit zwölf Regalen. Können Sie uns nächste Woche einen Liefertermin nennen?', true],
    ['Facture n° F-2025-0412', 'Bonjour {n}, veuillez trouver ci-joint la facture F-2025-0412 pour la maintenance de votre standard téléphonique en mars. Montant : 240,00 € HT, payable sous 30 jours.', false],
    ['Su pedido ha sido enviado', 'Hola {n}: su pedido 55-8812 ha salido de nuestro almacén y llegará el miércoles. Puede seguir el envío con el número de seguimiento ES77120034. Si tiene alguna duda sobre la instalación, estaremos encantados de llamarle.', false],
    ['Re: Preventivo caffè', 'Buongiorno {n}, grazie per il preventivo. Confermiamo la macchina in comodato e due chili di miscela al mese. Possiamo fissare la consegna per lunedì?', true],
    ['Resumo da nossa reunião', 'Olá {n}, obrigado pela reunião de hoje. Conforme combinado, envio a proposta revista com o desconto para 50 utilizadores. Podemos falar na sexta-feira para fechar os detalhes?', false],
    ['Je bestelling is onderweg', 'Hoi {n}, goed nieuws: je bestelling 30021 is vandaag verzonden en wordt morgen tussen 9 en 13 uur bezorgd. Volg je pakket via de link in de app.', false],
    ['Odp: Spotkanie w czwartek', 'Dzień dobry, potwierdzam spotkanie w czwartek o 11:00 w naszym biurze. Proszę zabrać projekt umowy, o którym rozmawialiśmy.', true],
    ['Påminnelse: faktura 20931', 'Hej {n}, vi har ännu inte fått betalning för faktura 20931 på 4 800 kr som förföll den 28 februari. Om ni redan har betalat kan ni bortse från detta meddelande.', false],
    ['ご注文の商品を発送しました', '{n}様\n\nご注文いただいた事務用品一式を本日発送いたしました。お問い合わせ番号は4471-2290-1183です。到着まで今しばらくお待ちくださいませ。', false],
    ['回复：报价单', '{n}您好，报价单已收到，谢谢。我们同意第二个方案，请尽快安排合同，下周一之前发给我们。', true],
    ['결제 영수증', '{n}님, 3월 구독료 29,000원이 정상적으로 결제되었습니다. 영수증은 첨부 파일에서 확인하실 수 있습니다.', false],
    ['Toplantı notları', 'Merhaba {n}, dünkü görüşmemiz için teşekkürler. Konuştuğumuz gibi ilk teslimatı 15 Nisan’da yapacağız. Toplantı notlarını ekte bulabilirsiniz.', false],
    ['Ваш заказ отправлен', 'Здравствуйте, {n}! Ваш заказ № 48120 передан в службу доставки. Трек-номер: RU1188230045. Ожидаемая дата доставки — 14 марта.', false],
  ],
};
for (const [style, cores] of Object.entries(PITCH)) emit(1, style, cores, 3);
for (const [style, cores] of Object.entries(TRANSACTIONAL)) emit(0, style, cores, 3);
for (const [style, cores] of Object.entries(PITCH_21)) emit(1, style, cores, 3, '2.1');
for (const [style, cores] of Object.entries(TRANSACTIONAL_21)) emit(0, style, cores, 3, '2.1');
for (const [style, cores] of Object.entries(PITCH_22)) emit(1, style, cores, 3, '2.2');
for (const [style, cores] of Object.entries(PITCH_23)) emit(1, style, cores, 3, '2.3');
for (const [style, cores] of Object.entries(TRANSACTIONAL_23)) emit(0, style, cores, 3, '2.3');
for (const [style, cores] of Object.entries(PITCH_26)) emit(1, style, cores, 3, '2.6');
for (const [style, cores] of Object.entries(TRANSACTIONAL_26)) emit(0, style, cores, 3, '2.6');
for (const [style, cores] of Object.entries(PITCH_26_CHECK)) emit(1, style, cores, 3, '2.6', true);
for (const [style, cores] of Object.entries(TRANSACTIONAL_26_CHECK)) emit(0, style, cores, 3, '2.6', true);
for (const [style, cores] of Object.entries(PITCH_213_CHECK)) emit(1, style, cores, 3, '2.13', true);
for (const [style, cores] of Object.entries(TRANSACTIONAL_213_CHECK)) emit(0, style, cores, 3, '2.13', true);
for (const [style, cores] of Object.entries(PITCH_213)) emit(1, style, cores, 3, '2.13');
for (const [style, cores] of Object.entries(TRANSACTIONAL_213)) emit(0, style, cores, 3, '2.13');
// 2.14 (issue #12, session 13), FRESH CHECK: written on 2026-12-07 before any
// rule or training style of 2.14, and committed before any of it was scored.
// Never trained on (corpora.ts: `check` styles of 2.14 are left out of every
// training set); printed only by `eval-classifier.ts --only cold --fresh`.
// Pitches in languages no style had (Greek, Vietnamese, Indonesian, Hebrew,
// Thai, Ukrainian, Arabic) and new goals in Finnish, Czech and Hungarian
// (recruiting, link building, an event, a supplier, an investor, an agency);
// pretexts in those languages (an order, an invoice, a payment confirmation,
// an unthreaded "Re:"); English soft pitches and claimed thank-yous ("Thank
// you for your interest …" with no introduction); and the transactional mail
// that looks like them in the same languages (orders, invoices, payments,
// bookings, replies in a real thread, follow-ups of a real meeting, a real
// "thank you for your interest" to an applicant).
const PITCH_214_CHECK: Record<string, Core13[]> = {
  foreign_pitch_check14: [
    ['Avoin tehtävä', 'Hei {n}, löysin profiilisi LinkedInistä ja kokemuksesi pilvipalveluista kiinnitti huomioni. Asiakkaani, kasvava fintech-yritys Helsingissä, etsii kokenutta backend-kehittäjää. Olisitko kiinnostunut kuulemaan lisää?'],
    ['Spolupráce na obsahu', 'Dobrý den, {n}, váš blog o zahradničení čtu už delší dobu. Rád bych vám zdarma nabídl článek o kompostování, výměnou bychom jen prosili o jeden odkaz na náš e-shop. Mohu vám poslat několik témat?'],
    ['Meghívó', 'Kedves {n}! Szeretettel meghívjuk a budapesti HR Tech Fórumra május 14-én, ahol vezető cégek mutatják be bevált toborzási megoldásaikat. A helyek száma korlátozott, az első 20 jelentkező számára a részvétel ingyenes. Foglalhatok Önnek egy helyet?'],
    ['Προσφορά για τα γραφεία σας', 'Καλημέρα {n}, είμαστε εταιρεία προμήθειας αναλώσιμων γραφείου με πελάτες σε όλη την Αθήνα. Μπορούμε να σας προσφέρουμε έκπτωση 15% στην πρώτη σας παραγγελία και δωρεάν παράδοση. Θα θέλατε να σας στείλω τον τιμοκατάλογό μας;'],
    ['Giải pháp quản lý bán hàng', 'Chào anh/chị {n}, em là Linh từ công ty phần mềm SaleUp. Bên em cung cấp phần mềm quản lý bán hàng giúp các cửa hàng tiết kiệm đến 30% thời gian kiểm kho. Anh/chị có thể dành 15 phút để em giới thiệu qua không ạ?'],
    ['Perkenalan dari Nusantara Ventures', 'Halo {n}, saya partner di Nusantara Ventures, dana modal ventura tahap awal yang fokus pada teknologi pertanian. Kami sudah mengikuti perkembangan perusahaan Anda dan ingin mengenal tim Anda lebih jauh. Apakah Anda bersedia ngobrol santai minggu depan?'],
    ['הצעה לשיתוף פעולה', 'שלום {n}, אני דנה ממשרד הפרסום "גל דיגיטל". אנחנו עוזרים לחנויות אונליין להגדיל מכירות באמצעות קמפיינים ממומנים ברשתות החברתיות. אשמח לקבוע שיחה קצרה של 15 דקות כדי להציג לך כמה רעיונות. מתי נוח לך?'],
    ['ข้อเสนอพิเศษสำหรับธุรกิจของคุณ', 'สวัสดีครับคุณ{n} ผมชื่อสมชาย จากบริษัท ดิจิทัลพลัส เราช่วยร้านอาหารเพิ่มยอดขายออนไลน์ผ่านการตลาดบนโซเชียลมีเดีย ตอนนี้เรามีบริการวิเคราะห์เพจฟรีสำหรับลูกค้าใหม่ สนใจให้ผมส่งรายละเอียดไปให้ไหมครับ'],
    ['Пропозиція співпраці', 'Добрий день, {n}! Мене звати Олена, я представляю IT-компанію з Києва. Ми допомагаємо європейським стартапам швидко збирати команди розробників. Чи могли б ми поспілкуватися 20 хвилин наступного тижня?'],
    ['عرض خاص لشركتكم', 'السلام عليكم {n}، نحن شركة رائدة في توريد معدات المطابخ التجارية للفنادق والمطاعم في الخليج. يسعدنا أن نقدم لكم عرض أسعار مجاني ودون أي التزام. هل يمكنني الاتصال بكم هذا الأسبوع لمناقشة احتياجاتكم؟'],
    ['Objednávka č. 5521', 'Dobrý den, {n}, děkujeme za váš zájem o naše služby. Pro nové zákazníky máme slevu 25 % na první objednávku tonerů a doprava je zdarma. Mohu vám zítra zavolat a vše domluvit?'],
    ['Lasku 20931', 'Hei {n}, maksatteko liikaa sähköstä? Autamme yrityksiä kilpailuttamaan sähkösopimukset ja säästämään keskimäärin 18 %. Voinko lähettää teille vertailun veloituksetta?'],
    ['Re: Báo giá', 'Chào anh {n}, em xin phép gửi lại thông tin về dịch vụ thiết kế website của bên em. Hiện bên em đang có ưu đãi giảm 20% cho khách hàng mới. Anh có muốn em gửi báo giá chi tiết không ạ?'],
    ['Fizetési visszaigazolás', 'Kedves {n}! Köszönjük érdeklődését! Foglalja le helyét online marketing tanfolyamunkon: nyolc hét, az első tíz jelentkezőnek 40% kedvezménnyel. Válaszoljon IGEN-nel, és fenntartom az Ön helyét.'],
    ['Konfirmasi pesanan #8812', 'Halo {n}, terima kasih atas minat Anda. Kami menawarkan jasa pembukuan untuk UMKM mulai dari Rp500.000 per bulan, dengan konsultasi pertama gratis. Boleh saya hubungi Anda besok untuk menjelaskan lebih lanjut?'],
  ],
  soft_check14: [
    ['Thanks for your interest', 'Thank you for your interest in our leadership programme. As a thank-you, we are offering you a complimentary seat at our next masterclass on negotiation, worth 300 EUR. Spaces go quickly; shall I put your name down?'],
    ['Payment confirmation required', 'Thank you for your interest in Growthly! To lock in our launch price of 19 USD a month (usually 49), simply reply to this email and we will send your activation link. Over 2,000 agencies already use Growthly to automate their client reports.'],
    ['Loved your talk', 'I caught your talk at the logistics summit and enjoyed your point about empty miles. We have been building a load-matching tool around exactly that problem. Would it be crazy to ask for your thoughts on it over a short call?'],
    ['Thought of you', 'Saw that your team is expanding into Germany, congratulations. We have helped a few companies handle German payroll and contracts during their first year there. Worth comparing notes sometime?'],
    ['A small idea', 'Your podcast on rural entrepreneurship has been a favourite in our office. We run a micro-loan platform for farmers and think our borrowers would make great guests. Would you be open to an introduction?'],
    ['Your free upgrade', 'Thank you for your interest in cloud backup. We have reserved a free upgrade to our business tier for your company until Friday: unlimited storage and 24/7 support at the price of the basic plan. Reply to claim it.'],
  ],
};
const TRANSACTIONAL_214_CHECK: Record<string, Core13[]> = {
  foreign_tx_check14: [
    ['Tilausvahvistus 4471', 'Hei {n}, kiitos tilauksestasi! Tilaus 4471 (2 kpl työtuoli) on vahvistettu ja toimitetaan viikolla 12. Lähetämme seurantakoodin, kun paketti on lähtenyt.', false],
    ['Tapaamisen jälkeen', 'Hei {n}, kiitos tämänpäiväisestä tapaamisesta. Kuten sovimme, liitteenä on tarjous ohjelmistopäivityksestä. Voisimmeko sopia lyhyen puhelun ensi viikolle?', false],
    ['Faktura č. 2025-118', 'Dobrý den, {n}, v příloze zasíláme fakturu č. 2025-118 za servis klimatizace. Částku prosím uhraďte do 14 dnů na uvedený účet. Děkujeme.', false],
    ['Re: Poptávka', 'Dobrý den, děkujeme za poptávku. Cenovou nabídku na 40 židlí vám pošleme do pátku. Potřebujete je i s montáží?', true],
    ['Szállítási értesítő', 'Kedves {n}! A 3312-es számú rendelését ma feladtuk, holnap érkezik 8 és 16 óra között. A csomagkövetési szám: HU4410022. Kérdés esetén hívjon minket bizalommal.', false],
    ['Επιβεβαίωση ραντεβού', 'Καλησπέρα {n}, σας επιβεβαιώνουμε το ραντεβού σας για τον έλεγχο του κλιματιστικού την Πέμπτη στις 10:00. Αν χρειαστεί αλλαγή, παρακαλούμε ενημερώστε μας.', false],
    ['Re: Προσφορά', 'Καλημέρα {n}, ευχαριστούμε για την προσφορά. Συμφωνούμε με τη δεύτερη επιλογή. Μπορείτε να μας στείλετε το συμβόλαιο μέχρι την Παρασκευή;', true],
    ['Xác nhận đơn hàng #20931', 'Chào anh/chị {n}, cảm ơn anh/chị đã đặt hàng. Đơn hàng #20931 đã được xác nhận và sẽ được giao trong 2-3 ngày làm việc. Mã vận đơn sẽ được gửi qua tin nhắn.', false],
    ['Sau buổi họp hôm nay', 'Chào chị {n}, cảm ơn chị đã dành thời gian họp hôm nay. Như đã thống nhất, em gửi chị bản báo giá đã chỉnh sửa. Thứ Sáu mình gọi điện trao đổi thêm được không ạ?', false],
    ['Tagihan bulan Maret', 'Halo {n}, tagihan layanan internet Anda untuk bulan Maret sebesar Rp450.000 sudah tersedia. Mohon lakukan pembayaran sebelum tanggal 20 agar layanan tidak terganggu.', false],
    ['Re: Jadwal pengiriman', 'Halo {n}, terima kasih atas konfirmasinya. Barang akan kami kirim hari Kamis pagi. Apakah ada yang bisa menerima di kantor?', true],
    ['אישור הזמנה', 'שלום {n}, תודה על הזמנתך! הזמנה מספר 7781 התקבלה ותישלח תוך שלושה ימי עסקים. מספר המעקב יישלח אליך ב-SMS.', false],
    ['בהמשך לפגישה', 'היי {n}, תודה על הפגישה היום. כפי שסיכמנו, מצורפת הצעת המחיר המעודכנת. נדבר ביום ראשון כדי לסגור את הפרטים?', false],
    ['ยืนยันการชำระเงิน', 'เรียนคุณ{n} เราได้รับการชำระเงินจำนวน 1,290 บาท สำหรับค่าบริการรายปีเรียบร้อยแล้ว เลขที่ใบเสร็จ R-55120 ขอบคุณที่ใช้บริการครับ', false],
    ['Re: นัดประชุม', 'สวัสดีครับคุณ{n} วันพุธ 14.00 น. สะดวกครับ ผมจะนำแบบร่างสัญญาไปด้วย รบกวนส่งที่อยู่สำนักงานให้ผมด้วยนะครับ', true],
    ['Ваше замовлення відправлено', 'Добрий день, {n}! Ваше замовлення № 5512 передано до служби доставки. Номер для відстеження: 20450012345678. Очікувана дата доставки — 12 березня.', false],
    ['تأكيد الحجز', 'مرحباً {n}، نؤكد حجزكم لقاعة الاجتماعات يوم الثلاثاء من الساعة 10 حتى 12. رقم الحجز 44810. يرجى إبلاغنا في حال رغبتم بتغيير الموعد.', false],
    ['رد: عرض السعر', 'شكراً لكم على عرض السعر. نوافق على الخيار الأول، هل يمكنكم إرسال العقد قبل يوم الخميس؟', true],
  ],
  lookalike_check14: [
    ['Thanks for your interest', 'Thank you for your interest in the data analyst position. We have received your application and will review it over the next two weeks. If you are shortlisted, we will contact you to arrange an interview.', false],
    ['Thank you for your interest in our webinar', 'Thank you for your interest in our webinar on supply-chain planning. The recording and slides you requested are now available at the link below. Let me know if you would like the Q&A transcript too.', false],
    ['Payment confirmation', 'Thank you for your payment. We have received 2,400 EUR for invoice 2025-0311. No further action is needed on your side; a receipt is attached for your records.', false],
    ['Your quote, as requested', 'Thanks for your call this morning. Here is the quote for repainting the ground floor you asked for: 3,800 EUR including materials, five working days. We have a slot starting on the 14th; would you like us to hold it for you?', false],
  ],
};
for (const [style, cores] of Object.entries(PITCH_214_CHECK)) emit(1, style, cores, 3, '2.14', true);
for (const [style, cores] of Object.entries(TRANSACTIONAL_214_CHECK)) emit(0, style, cores, 3, '2.14', true);
// 2.14 (issue #12, session 13): training styles written from goals (a
// partnership, a quick question, a recruiter, link building, an investor,
// an event, a supplier, a listing) in 25 languages — soft pitches that end
// in a question and offers of goods and services — with transactional mail
// in the same languages (orders, invoices, bookings, a registration the
// recipient made, a recruiter answering an application, a quote that was
// asked for, follow-ups of a real meeting); pitches that claim the
// recipient's interest or payment ("Thank you for your interest …",
// "Payment confirmation") and the genuine mail of those subjects. Written
// after the fresh check of 2.14 was committed, before any 2.14 rule; no text
// shared with it. Emitted last so that every earlier record is
// byte-identical.
const PITCH_214: Record<string, Core13[]> = {
  foreign_pitch_soft14: [
    ['Kysymys', 'Hei {n}, olen rekrytointikonsultti ja etsin asiakkaalleni, suurelle teollisuusyritykselle, tuotantopäällikköä Tampereelle. Taustasi näyttää sopivan tehtävään hyvin. Ehtisitkö jutella puhelimessa tällä viikolla?'],
    ['Pozvánka na konferenci', 'Dobrý den, {n}, rádi bychom vás pozvali na konferenci o digitalizaci výroby, která se koná 12. října v Praze. Pro vybrané hosty máme několik volných vstupenek zdarma. Mám vám jednu rezervovat?'],
    ['Soru', 'Merhaba {n}, ben bir insan kaynakları danışmanıyım. Müşterimiz olan uluslararası bir lojistik şirketi İstanbul ofisi için satış müdürü arıyor. Profiliniz çok uygun görünüyor, kısa bir telefon görüşmesi yapabilir miyiz?'],
    ['투자 관련 인사드립니다', '{n}님 안녕하세요, 벤처캐피털 그린파트너스의 이수진입니다. 귀사의 성장 과정을 관심 있게 지켜보고 있었습니다. 다음 주에 커피 한잔하며 이야기 나눌 수 있을까요?'],
    ['合作机会', '{n}您好，我是星辰资本的投资经理。我们一直关注贵公司在新能源领域的发展，很希望能有机会和您当面交流。请问下周您是否有空喝杯咖啡？'],
    ['Приглашение на форум', 'Здравствуйте, {n}! Приглашаем вас принять участие в форуме «Логистика 2025», который пройдёт в Москве 20 мая. Для руководителей компаний участие бесплатное, количество мест ограничено. Зарезервировать для вас место?'],
    ['Pytanie', 'Dzień dobry {n}, kto w Państwa firmie odpowiada za szkolenia pracowników? Chciałabym przedstawić nasz program szkoleń z obsługi klienta, z którego korzysta już ponad sto firm.'],
    ['Even een vraag', 'Hoi {n}, ik ben recruiter en werk voor een snelgroeiend softwarebedrijf in Eindhoven dat een lead developer zoekt. Jouw ervaring met embedded systemen past er perfect bij. Sta je open voor een kort gesprek?'],
    ['Πρόσκληση', 'Αγαπητέ {n}, σας προσκαλούμε στο συνέδριο για το ηλεκτρονικό εμπόριο που θα πραγματοποιηθεί στη Θεσσαλονίκη τον Ιούνιο. Οι θέσεις είναι περιορισμένες. Θέλετε να σας κρατήσω μία θέση;'],
    ['Cơ hội hợp tác', 'Chào anh {n}, em là Minh, chuyên viên tư vấn tuyển dụng. Bên em đang tìm trưởng phòng kinh doanh cho một tập đoàn bán lẻ lớn và thấy kinh nghiệm của anh rất phù hợp. Anh có tiện trao đổi qua điện thoại vài phút không ạ?'],
    ['Undangan webinar', 'Halo {n}, kami mengundang Anda ke webinar gratis tentang strategi pemasaran digital untuk UMKM pada hari Kamis. Tempat terbatas untuk 50 peserta. Apakah Anda tertarik untuk bergabung?'],
    ['שאלה קצרה', 'היי {n}, אני מגייסת בחברת השמה ועובדת עם סטארט-אפ בתחום הסייבר שמחפש ראש צוות פיתוח. נראה לי שהניסיון שלך מתאים מאוד. יש לך כמה דקות לשיחה השבוע?'],
    ['ขอเชิญเข้าร่วมงานสัมมนา', 'เรียนคุณ{n} บริษัทของเราขอเรียนเชิญท่านเข้าร่วมงานสัมมนาเรื่องการบริหารคลังสินค้า ในวันที่ 15 มีนาคม ที่กรุงเทพฯ ไม่มีค่าใช้จ่าย ที่นั่งมีจำนวนจำกัด ท่านสนใจให้เราสำรองที่นั่งไว้ไหมคะ'],
    ['Запрошення до партнерства', 'Добрий день, {n}! Я керую відділом партнерств у компанії з розробки програмного забезпечення для аптек. Думаю, нам варто обговорити спільний проєкт. Чи знайдете ви пів години наступного тижня?'],
    ['دعوة لحضور معرض', 'مرحباً {n}، يسرنا دعوتكم لزيارة جناحنا في معرض دبي للأغذية الشهر المقبل، حيث سنعرض منتجاتنا الجديدة. هل تودون أن نحجز لكم موعداً مع فريق المبيعات؟'],
    ['Befektetés', 'Kedves {n}! Egy budapesti kockázati tőkealap partnere vagyok, és figyelemmel kísérjük cégük fejlődését. Szívesen megismerném a terveiket. Lenne ideje egy rövid beszélgetésre a jövő héten?'],
    ['Otázka', 'Dobrý deň, {n}, kto vo vašej spoločnosti zodpovedá za marketing? Radi by sme vám predstavili naše riešenie na správu sociálnych sietí. Mali by ste záujem o krátku ukážku?'],
    ['Suradnja', 'Poštovani {n}, vodim malu agenciju za digitalni marketing u Zagrebu. Primijetio sam da vaša web stranica nije prilagođena mobitelima. Smijem li vam poslati nekoliko prijedloga?'],
    ['Invitație', 'Bună ziua, {n}! Vă invităm la conferința despre inteligența artificială în afaceri, pe 8 aprilie la Cluj. Participarea este gratuită pentru manageri. Doriți să vă rezervăm un loc?'],
    ['Oportunidade de carreira', 'Olá {n}, sou headhunter e estou a recrutar um diretor financeiro para uma empresa do setor da saúde em Lisboa. O seu perfil chamou-me a atenção. Estaria disponível para uma conversa confidencial?'],
    ['Kurze Frage', 'Hallo {n}, wer ist bei Ihnen für den Einkauf von Verpackungsmaterial zuständig? Wir beliefern bereits mehrere Lebensmittelhersteller in Bayern und würden uns gern kurz vorstellen.'],
    ['Invito', 'Gentile {n}, siamo lieti di invitarla al nostro evento sul futuro del retail, il 22 maggio a Milano. I posti sono limitati: desidera che le riservi un posto?'],
    ['Une question rapide', 'Bonjour {n}, qui s’occupe des achats de fournitures chez vous ? Nous livrons déjà une centaine d’entreprises de la région et j’aimerais vous présenter notre offre.'],
    ['Invitación', 'Hola {n}, le invitamos a nuestro desayuno de trabajo sobre ciberseguridad para pymes, el próximo jueves en Valencia. La asistencia es gratuita. ¿Quiere que le reserve una plaza?'],
    ['ご挨拶', '{n}様\n\nはじめまして。人材紹介会社のキャリアブリッジで採用支援を担当しております山田と申します。貴社のエンジニア採用について、お役に立てるご提案がございます。一度お電話でお話しできませんでしょうか。'],
  ],
  foreign_pitch_offer14: [
    ['Tarjous', 'Hei {n}, olemme siivousalan yritys Oulusta ja tarjoamme toimistosiivousta kiinteään kuukausihintaan. Haluaisimme tehdä teille tarjouksen. Saanko soittaa ensi viikolla?'],
    ['Nabídka', 'Dobrý den, {n}, jsme výrobce kancelářského nábytku a nabízíme firmám kompletní vybavení kanceláří. Rádi vám zašleme náš katalog a ceník. Máte zájem?'],
    ['Fiyat teklifi', 'Merhaba {n}, firmamız ambalaj malzemeleri üretmektedir ve Türkiye genelinde 300’den fazla müşteriye hizmet vermektedir. Size özel bir fiyat teklifi hazırlamak isteriz.'],
    ['제품 소개', '{n}님 안녕하세요, 저희 회사는 사무용 가구를 제조하고 있습니다. 최신 카탈로그와 가격표를 보내드리고 싶은데, 받아보시겠어요?'],
    ['产品推荐', '{n}您好，我们公司专业生产包装材料，产品出口三十多个国家。附上最新产品目录，如有需要，欢迎随时联系我们获取报价。'],
    ['Коммерческое предложение', 'Добрый день, {n}! Мы производим офисную мебель и поставляем её по всей России. Готовы подготовить для вас индивидуальное предложение со скидкой. Интересно?'],
    ['Oferta współpracy', 'Dzień dobry, jesteśmy producentem opakowań kartonowych. Chętnie przygotujemy ofertę dopasowaną do Państwa potrzeb. Czy mogę przesłać katalog?'],
    ['Link op je website', 'Hallo {n}, ik beheer een blog over duurzaam wonen en wil graag een gastartikel voor jullie website schrijven, gratis. In ruil vraag ik alleen één link naar mijn blog. Interesse?'],
    ['Συνεργασία', 'Γεια σας {n}, είμαστε γραφείο ψηφιακού μάρκετινγκ και βοηθάμε ξενοδοχεία να αυξήσουν τις απευθείας κρατήσεις. Θα θέλατε μια δωρεάν ανάλυση της ιστοσελίδας σας;'],
    ['Báo giá dịch vụ', 'Chào chị {n}, công ty em chuyên cung cấp dịch vụ vệ sinh văn phòng tại Hà Nội với giá cạnh tranh. Em có thể gửi chị bảng giá để tham khảo không ạ?'],
    ['Penawaran kerja sama', 'Halo {n}, kami adalah distributor alat tulis kantor dengan harga grosir. Kami ingin mengirimkan katalog dan daftar harga terbaru kami. Apakah Anda berminat?'],
    ['הצעת מחיר', 'שלום {n}, אנחנו חברה לניקיון משרדים באזור המרכז ונשמח לתת לכם הצעת מחיר ללא התחייבות. אפשר להתקשר אליך מחר?'],
    ['เสนอบริการ', 'สวัสดีค่ะคุณ{n} บริษัทเราให้บริการทำความสะอาดสำนักงานในราคาพิเศษ ดิฉันขออนุญาตส่งใบเสนอราคาให้พิจารณานะคะ'],
    ['Комерційна пропозиція', 'Добрий день, {n}! Ми виробляємо пакування для харчової промисловості. Із задоволенням надішлемо вам каталог і прайс-лист. Вам цікаво?'],
    ['عرض أسعار', 'مرحباً {n}، نحن شركة متخصصة في تصميم المواقع الإلكترونية. نود أن نقدم لكم استشارة مجانية لتحسين موقعكم. هل أنتم مهتمون؟'],
    ['Ajánlatunk', 'Kedves {n}! Irodaszereket forgalmazunk nagykereskedelmi áron. Szívesen elküldenénk Önöknek katalógusunkat és árlistánkat. Érdekelné?'],
    ['Ponuka', 'Dobrý deň, {n}, sme účtovnícka firma z Bratislavy a ponúkame vedenie účtovníctva pre malé firmy. Radi vám pripravíme cenovú ponuku.'],
    ['Ponuda', 'Poštovani {n}, proizvodimo uredski namještaj po mjeri. Rado ćemo vam poslati katalog i cjenik. Jeste li zainteresirani?'],
    ['Ofertă de colaborare', 'Bună ziua, {n}! Suntem o agenție de traduceri și lucrăm cu peste 200 de companii. Vă putem trimite tarifele noastre?'],
    ['Listagem no nosso diretório', 'Olá {n}, estamos a preparar o novo guia das melhores empresas de construção do Norte e gostaríamos de incluir a sua. O anúncio premium custa 250 euros por ano. Posso enviar mais informações?'],
    ['Ihr Eintrag im Branchenbuch', 'Guten Tag {n}, Ihr Unternehmen wurde für unser regionales Branchenverzeichnis ausgewählt. Für einen hervorgehobenen Eintrag mit Logo genügt eine kurze Bestätigung des Angebots.'],
    ['Fornitura di cancelleria', 'Buongiorno {n}, siamo un grossista di cancelleria e forniamo oltre 500 uffici in Lombardia. Le posso inviare il nostro listino prezzi?'],
    ['Article invité', 'Bonjour {n}, je rédige des articles sur la finance personnelle et j’aimerais vous proposer un article invité gratuit pour votre blog, en échange d’un lien vers mon site. Cela vous intéresse ?'],
    ['Proveedor de embalajes', 'Buenos días, {n}. Fabricamos cajas de cartón a medida y servimos a más de 400 empresas. ¿Le puedo enviar nuestro catálogo con precios?'],
    ['オフィス家具のご案内', '{n}様\n\n弊社はオフィス家具の製造販売を行っております。最新のカタログと価格表をお送りしたく存じますが、いかがでしょうか。'],
  ],
  pretext_pitch14: [
    ['Thank you for your interest', 'Thank you for your interest in our services! We are offering new clients a free website audit this month, plus 30% off the first three months of SEO. Just reply to this email and I will get you started.'],
    ['Payment confirmation needed', 'Thanks for your interest in the Pro plan! To secure the early-bird price of 9 USD a month, simply confirm by replying YES. Over 5,000 small businesses already trust us with their invoicing.'],
    ['Your registration', 'Thank you for your interest in the Growth Summit! As a valued contact you qualify for a complimentary VIP pass, worth 400 EUR, including the speakers’ dinner. Only a few remain; shall I reserve one for you?'],
    ['Receipt', 'Thank you for choosing us! As a special welcome, your company qualifies for three months of free payroll processing. Reply today to activate the offer before it expires.'],
    ['Thanks for stopping by', 'Thanks for checking out our website! Companies like yours save around 20% on energy with our smart thermostats. Can I send you a personalised quote?'],
    ['Order #20417', 'Exclusive for you: upgrade to our premium cleaning package and get the first month free. Thousands of offices already rely on us every week. Book your free trial clean now.'],
  ],
  soft_pitch14: [
    ['Your post on hiring', 'Your post about hiring your first salesperson really resonated. We have built a short assessment that helps founders spot good sales hires, and I would love your honest feedback on it. Could I send it over?'],
    ['Idea for your shop', 'I love what you have done with the shop window this season. We design seasonal displays for independent retailers and I have a few sketches that might suit your space. Would you like to see them?'],
    ['Congrats on the new office', 'Congratulations on the new office in Leeds. Setting up a second site is a lot of work; we have helped several teams get their IT and phones running in a week. Happy to share a checklist if that would help?'],
    ['Compare notes?', 'I noticed you are also building tools for school administrators. We have been in the space for five years and I suspect there is room for both of us to work together. Fancy a quick chat sometime?'],
    ['For your next event', 'Saw the photos from your team offsite, looked like a great day. We organise activity days for companies across the North West and have a few dates left this spring. Shall I send our brochure?'],
    ['Your newsletter', 'Big fan of your newsletter on remote work. We run a co-working network in eight cities and would love to offer your readers a free day pass. Would that be of interest?'],
  ],
};
const TRANSACTIONAL_214: Record<string, Core13[]> = {
  foreign_tx14: [
    ['Haastattelukutsu', 'Hei {n}, kiitos hakemuksestasi tuotantopäällikön tehtävään. Haluaisimme kutsua sinut haastatteluun ensi tiistaina klo 10. Sopiiko aika sinulle?', false],
    ['Re: Tarjouspyyntö', 'Hei {n}, kiitos tarjouspyynnöstä. Liitteenä tarjous toimistosiivouksesta, hinta 640 euroa kuukaudessa. Voimme aloittaa ensi kuun alusta.', true],
    ['Potvrzení registrace', 'Dobrý den, {n}, děkujeme za registraci na konferenci o digitalizaci výroby. Vaše vstupenka je v příloze, registrace začíná v 8:30.', false],
    ['Potvrzení objednávky', 'Dobrý den, vaše objednávka č. 4410 byla přijata a odešleme ji zítra. Číslo zásilky vám pošleme SMS zprávou.', false],
    ['Başvurunuz hakkında', 'Merhaba {n}, satış müdürü pozisyonuna yaptığınız başvuru için teşekkür ederiz. Sizi perşembe günü saat 14:00’te bir görüşmeye davet etmek istiyoruz. Uygun musunuz?', false],
    ['Fatura', 'Merhaba {n}, mart ayına ait 2025-118 numaralı faturanız ektedir. Ödemenizi ay sonuna kadar yapmanızı rica ederiz.', false],
    ['면접 일정 안내', '{n}님, 프로덕트 매니저 포지션에 지원해 주셔서 감사합니다. 1차 면접을 다음 주 수요일 오후 3시로 잡고자 하는데 괜찮으실까요?', false],
    ['报名确认', '{n}您好，感谢您报名参加零售数字化峰会。您的参会编号为SH2025-118，请于会议当天携带身份证签到。', false],
    ['Ваш заказ', 'Здравствуйте, {n}! Ваш заказ № 7714 на офисные кресла оплачен. Доставка запланирована на пятницу, курьер позвонит за час.', false],
    ['Re: Zapytanie ofertowe', 'Dzień dobry, dziękujemy za zapytanie. W załączniku przesyłamy ofertę na kartony zgodnie z podanymi wymiarami. Czy termin dostawy w marcu Państwu odpowiada?', true],
    ['Uitnodiging sollicitatiegesprek', 'Hoi {n}, bedankt voor je sollicitatie als lead developer. We willen je graag uitnodigen voor een gesprek op maandag om 11 uur. Past dat?', false],
    ['Επιβεβαίωση παραγγελίας', 'Αγαπητέ {n}, η παραγγελία σας αρ. 5530 επιβεβαιώθηκε και θα αποσταλεί αύριο. Θα λάβετε τον αριθμό αποστολής με SMS.', false],
    ['Re: Θέση εργασίας', 'Γεια σας {n}, ευχαριστούμε για το βιογραφικό σας. Θα θέλαμε να σας καλέσουμε σε συνέντευξη την Τρίτη στις 11:00. Σας εξυπηρετεί;', true],
    ['Thư mời phỏng vấn', 'Chào anh {n}, cảm ơn anh đã ứng tuyển vị trí trưởng phòng kinh doanh. Chúng tôi xin mời anh tham gia phỏng vấn vào 9 giờ sáng thứ Ba tại văn phòng.', false],
    ['Hóa đơn tháng 3', 'Chào chị {n}, công ty xin gửi chị hóa đơn dịch vụ vệ sinh tháng 3, số tiền 4.500.000 đồng. Vui lòng thanh toán trước ngày 15.', false],
    ['Konfirmasi pendaftaran webinar', 'Halo {n}, terima kasih telah mendaftar webinar strategi pemasaran digital. Tautan Zoom akan kami kirim satu jam sebelum acara dimulai.', false],
    ['Re: Pesanan alat tulis', 'Halo {n}, pesanan Anda sudah kami proses dan akan dikirim besok. Faktur terlampir.', true],
    ['אישור השתתפות', 'שלום {n}, תודה שנרשמת לכנס. מספר הכרטיס שלך הוא 3391. נשמח לראותך ביום שלישי בשעה 9:00.', false],
    ['Re: הצעת מחיר לניקיון', 'היי {n}, תודה על הפנייה. מצורפת הצעת המחיר שביקשת לניקיון המשרדים, 2,400 ש"ח לחודש. נוכל להתחיל ב-1 לחודש.', true],
    ['ยืนยันการลงทะเบียน', 'เรียนคุณ{n} ขอบคุณที่ลงทะเบียนเข้าร่วมงานสัมมนาการบริหารคลังสินค้า หมายเลขลงทะเบียนของท่านคือ 2291 กรุณาแสดงอีเมลนี้ที่จุดลงทะเบียน', false],
    ['ใบแจ้งหนี้เดือนมีนาคม', 'เรียนคุณ{n} บริษัทขอส่งใบแจ้งหนี้ค่าบริการทำความสะอาดประจำเดือนมีนาคม จำนวน 8,500 บาท กรุณาชำระภายในวันที่ 15 ค่ะ', false],
    ['Після нашої зустрічі', 'Добрий день, {n}! Дякую за сьогоднішню зустріч. Як домовлялися, надсилаю комерційну пропозицію. Зателефоную вам у четвер?', false],
    ['Рахунок № 118', 'Добрий день, {n}! Надсилаємо рахунок № 118 за березень. Просимо оплатити до кінця місяця.', false],
    ['تأكيد الطلب', 'مرحباً {n}، شكراً لطلبكم. تم تأكيد الطلب رقم 6620 وسيتم الشحن خلال يومين. سنرسل لكم رقم التتبع قريباً.', false],
    ['بخصوص طلب التوظيف', 'عزيزي {n}، شكراً لتقديمك على وظيفة مدير المبيعات. نود دعوتك لمقابلة يوم الأحد الساعة العاشرة صباحاً. هل يناسبك الموعد؟', false],
    ['Megrendelés visszaigazolása', 'Kedves {n}! Köszönjük megrendelését. A 7712-es számú rendelést holnap szállítjuk, a futár előtte telefonon jelentkezik.', false],
    ['Potvrdenie objednávky', 'Dobrý deň, {n}, vaša objednávka č. 3318 bola prijatá a odošleme ju v pondelok.', false],
    ['Potvrda narudžbe', 'Poštovani {n}, vaša narudžba br. 2207 je zaprimljena i bit će isporučena u četvrtak.', false],
    ['Confirmare înregistrare', 'Bună ziua, {n}! Vă mulțumim pentru înregistrarea la conferința din 8 aprilie. Biletul dumneavoastră este atașat.', false],
    ['Candidatura recebida', 'Olá {n}, obrigado pela sua candidatura à vaga de diretor financeiro. Gostaríamos de marcar uma entrevista na próxima semana. Que dia lhe dá mais jeito?', false],
  ],
  pretext_tx14: [
    ['Thank you for your interest', 'Thank you for your interest in the warehouse supervisor role. We have received your application and will be in touch within ten working days about the next steps.', false],
    ['Payment confirmation', 'We have received your payment of 86.40 EUR for invoice 1187. Thank you. Your receipt is attached and no further action is needed.', false],
    ['Your registration', 'Thank you for registering for the Growth Summit on 14 May. Your ticket number is GS-2291; the programme and venue details are attached.', false],
    ['Receipt', 'Thank you for your purchase. Receipt number 55-0031 for one annual licence, 120 EUR, paid by card. You can download the invoice from your account.', false],
    ['Thanks for your enquiry', 'Thanks for your enquiry about the meeting room. It is free on Thursday from 9 to 12; the price is 90 EUR for the morning including coffee. Shall I book it for you?', false],
    ['Order #20417', 'Your order #20417 has been packed and will be collected by the courier today. You will receive the tracking link by email this afternoon.', false],
  ],
};
for (const [style, cores] of Object.entries(PITCH_214)) emit(1, style, cores, 3, '2.14');
for (const [style, cores] of Object.entries(TRANSACTIONAL_214)) emit(0, style, cores, 3, '2.14');
// 2.14: more of the languages whose script no earlier style had (Greek, Vietnamese, Indonesian,
// Hebrew, Thai, Ukrainian, Arabic) and of Finnish, Czech and Hungarian, pitches and transactional
// mail in equal numbers, so that the language itself says nothing.
const PITCH_214B: Record<string, Core13[]> = {
  foreign_pitch_more14: [
    ['Βελτίωση της ιστοσελίδας σας', 'Καλησπέρα {n}, ονομάζομαι Νίκος και είμαι σύμβουλος SEO. Είδα ότι η ιστοσελίδα σας δεν εμφανίζεται στην πρώτη σελίδα της Google για βασικές αναζητήσεις. Μπορώ να σας στείλω μια σύντομη αναφορά με προτάσεις;'],
    ['Επενδυτικό ενδιαφέρον', 'Γεια σας {n}, εκπροσωπώ ένα ταμείο επιχειρηματικών κεφαλαίων που επενδύει σε ελληνικές νεοφυείς εταιρείες. Θα χαρούμε να γνωριστούμε. Έχετε χρόνο για έναν καφέ την επόμενη εβδομάδα;'],
    ['Tăng lượt khách cho nhà hàng', 'Chào anh {n}, bên em là agency quảng cáo chuyên cho nhà hàng và quán cà phê. Tháng trước bên em giúp một quán ở quận 3 tăng gấp đôi lượt đặt bàn. Anh có muốn nghe thử kế hoạch cho quán mình không ạ?'],
    ['Lời mời tham dự hội thảo', 'Kính gửi anh/chị {n}, công ty chúng tôi trân trọng mời anh/chị tham dự hội thảo về chuyển đổi số trong bán lẻ vào ngày 20 tháng 5. Số lượng chỗ có hạn. Anh/chị có muốn đăng ký giữ chỗ không?'],
    ['Tawaran jasa desain', 'Halo {n}, saya Rina, desainer grafis lepas. Saya melihat logo perusahaan Anda belum diperbarui sejak lama. Saya bisa membuatkan tiga konsep baru dengan harga khusus. Mau saya kirimkan portofolio saya?'],
    ['Kesempatan karier', 'Halo {n}, saya konsultan rekrutmen dan sedang membantu perusahaan fintech besar di Jakarta mencari kepala tim engineering. Profil Anda sangat cocok. Apakah Anda terbuka untuk diskusi singkat?'],
    ['שיתוף פעולה בתוכן', 'היי {n}, אני כותבת תוכן בתחום הבריאות ואשמח לכתוב מאמר אורח לבלוג שלכם בחינם, בתמורה לקישור אחד לאתר שלי. אפשר לשלוח כמה רעיונות?'],
    ['הזמנה לכנס', 'שלום {n}, אנחנו מזמינים אותך לכנס השנתי של מנהלי הרכש, שיתקיים בתל אביב בחודש הבא. ההשתתפות ללא עלות למנהלים בכירים. לשריין לך מקום?'],
    ['บริการด้านบัญชี', 'เรียนคุณ{n} ดิฉันชื่อมาลี จากสำนักงานบัญชีพรีเมียร์ เราให้บริการทำบัญชีและยื่นภาษีสำหรับธุรกิจขนาดเล็ก ในราคาเริ่มต้นเพียง 2,500 บาทต่อเดือน ท่านสนใจนัดคุยรายละเอียดสัก 15 นาทีไหมคะ'],
    ['โอกาสร่วมลงทุน', 'สวัสดีครับคุณ{n} ผมเป็นผู้จัดการกองทุนร่วมลงทุนที่ลงทุนในสตาร์ทอัพด้านอาหาร ผมติดตามธุรกิจของคุณมาสักพักแล้ว อยากขอนัดพูดคุยสั้นๆ สัปดาห์หน้าได้ไหมครับ'],
    ['Просування вашого сайту', 'Добрий день, {n}! Ми SEO-агенція і допомагаємо інтернет-магазинам потрапити в топ пошуку. Можемо безкоштовно проаналізувати ваш сайт. Надіслати вам звіт?'],
    ['Запрошення на конференцію', 'Добрий день, {n}! Запрошуємо вас на конференцію з кібербезпеки, яка відбудеться у Львові 14 травня. Для керівників участь безкоштовна. Забронювати для вас місце?'],
    ['خدمات التسويق الرقمي', 'مرحباً {n}، أنا سارة من وكالة تسويق رقمي في الرياض. نساعد المتاجر الإلكترونية على زيادة مبيعاتها عبر الإعلانات. هل لديكم وقت لمكالمة قصيرة لمدة 15 دقيقة هذا الأسبوع؟'],
    ['فرصة عمل', 'مرحباً {n}، أعمل في شركة توظيف، ولدينا عميل كبير في دبي يبحث عن مدير مالي. خبرتك تبدو مناسبة جداً. هل أنت منفتح على محادثة سرية؟'],
    ['Tapahtumakutsu', 'Hei {n}, kutsumme sinut maksuttomaan aamiaistilaisuuteen, jossa kerromme uusista tietoturvaratkaisuista. Paikkoja on rajoitetusti. Varaanko sinulle paikan?'],
    ['Nabídka pro váš e-shop', 'Dobrý den, {n}, jsme agentura na tvorbu webů a všimli jsme si, že váš e-shop se na mobilu načítá pomalu. Rádi vám zdarma připravíme návrh řešení. Můžeme si zavolat?'],
    ['Együttműködés', 'Kedves {n}! Marketingügynökség vagyunk, és éttermeknek segítünk több vendéget szerezni. Szívesen bemutatnám, hogyan dolgozunk. Lenne 15 perce egy rövid hívásra?'],
  ],
};
const TRANSACTIONAL_214B: Record<string, Core13[]> = {
  foreign_tx_more14: [
    ['Η κράτησή σας', 'Αγαπητή {n}, η κράτησή σας για δύο άτομα στο ξενοδοχείο μας από 12 έως 15 Ιουνίου επιβεβαιώθηκε. Αριθμός κράτησης: 44120. Η άφιξη είναι από τις 14:00.', false],
    ['Μετά τη συνάντησή μας', 'Καλησπέρα {n}, ευχαριστώ για τη σημερινή συνάντηση. Σας στέλνω τη συμφωνία όπως τη συζητήσαμε. Μπορούμε να μιλήσουμε την Πέμπτη για τις τελευταίες λεπτομέρειες;', false],
    ['Nhắc lịch hẹn', 'Chào chị {n}, phòng khám xin nhắc chị lịch hẹn khám răng vào 10 giờ sáng thứ Năm. Nếu cần đổi lịch, chị vui lòng gọi lại cho chúng tôi.', false],
    ['Re: Hợp đồng thuê văn phòng', 'Chào anh {n}, bên em đã nhận được hợp đồng anh ký. Bản gốc em sẽ gửi chuyển phát nhanh ngày mai. Anh cần thêm giấy tờ gì không ạ?', true],
    ['Pengingat pembayaran', 'Halo {n}, kami ingin mengingatkan bahwa tagihan nomor INV-2231 sebesar Rp1.200.000 jatuh tempo pada hari Jumat. Abaikan pesan ini jika Anda sudah membayar.', false],
    ['Setelah rapat kita', 'Halo {n}, terima kasih atas waktunya di rapat tadi. Terlampir proposal yang sudah kami revisi sesuai masukan Anda. Bisakah kita bicara lagi hari Senin?', false],
    ['תזכורת לתור', 'שלום {n}, זוהי תזכורת לתור שלך למרפאה ביום רביעי בשעה 16:30. אם אינך יכול להגיע, נא לעדכן אותנו.', false],
    ['Re: חוזה השכירות', 'היי {n}, קיבלנו את החוזה החתום, תודה. המפתחות יהיו מוכנים לאיסוף ביום חמישי בבוקר. מתאים לך?', true],
    ['ยืนยันการจองห้องพัก', 'เรียนคุณ{n} การจองห้องพักของท่านวันที่ 12-14 มิถุนายน ได้รับการยืนยันแล้ว หมายเลขการจอง 55210 เช็กอินได้ตั้งแต่ 14.00 น.', false],
    ['Re: เอกสารสัญญา', 'สวัสดีครับคุณ{n} ผมได้รับเอกสารสัญญาที่เซ็นแล้วครับ ขอบคุณมาก จะส่งฉบับจริงให้ทางไปรษณีย์พรุ่งนี้ ต้องการเอกสารอื่นเพิ่มเติมไหมครับ', true],
    ['Нагадування про оплату', 'Добрий день, {n}! Нагадуємо, що рахунок № 2231 на суму 4 800 грн потрібно оплатити до п’ятниці. Якщо ви вже оплатили, проігноруйте це повідомлення.', false],
    ['Re: Договір оренди', 'Добрий день, {n}! Отримали підписаний договір, дякуємо. Ключі можна забрати в четвер зранку. Вам зручно?', true],
    ['تذكير بالموعد', 'مرحباً {n}، نذكركم بموعدكم في العيادة يوم الأربعاء الساعة الرابعة والنصف مساءً. يرجى إبلاغنا إذا لم تتمكنوا من الحضور.', false],
    ['رد: العقد', 'شكراً {n}، استلمنا العقد الموقع. سنرسل النسخة الأصلية بالبريد غداً. هل تحتاجون أي مستندات أخرى؟', true],
    ['Varausvahvistus', 'Hei {n}, pöytävarauksesi neljälle hengelle lauantaille klo 19 on vahvistettu. Varausnumero 3391. Tervetuloa!', false],
    ['Připomínka platby', 'Dobrý den, {n}, připomínáme, že faktura č. 2231 je splatná v pátek. Pokud jste již zaplatili, tuto zprávu prosím ignorujte.', false],
    ['Időpont-emlékeztető', 'Kedves {n}! Emlékeztetjük, hogy fogorvosi időpontja csütörtökön 10 órakor lesz. Ha nem tud eljönni, kérjük, jelezze.', false],
  ],
};
for (const [style, cores] of Object.entries(PITCH_214B)) emit(1, style, cores, 3, '2.14');
for (const [style, cores] of Object.entries(TRANSACTIONAL_214B)) emit(0, style, cores, 3, '2.14');
writeFileSync(path.join(here, 'cold-styles.jsonl'), out.map((r) => JSON.stringify(r)).join('\n') + '\n');
process.stdout.write(`wrote ${out.length} records (${out.filter((r) => r.label).length} pitches, ${Object.keys(PITCH).length + Object.keys(PITCH_21).length + Object.keys(PITCH_22).length + Object.keys(PITCH_23).length + Object.keys(PITCH_26).length + Object.keys(PITCH_26_CHECK).length} pitch styles, ${Object.keys(TRANSACTIONAL).length + Object.keys(TRANSACTIONAL_21).length + Object.keys(TRANSACTIONAL_23).length + Object.keys(TRANSACTIONAL_26).length + Object.keys(TRANSACTIONAL_26_CHECK).length} transactional styles)\n`);
