import type { IndustryDefinition } from './types';

/** Industries an agent can be built for, in display order. */
export const INDUSTRIES: readonly IndustryDefinition[] = [
  {
    id: 'real_estate',
    name: 'Real Estate',
    description:
      'Brokerages, agents and property managers: qualifying buyer and seller leads, booking showings and following up after open houses.',
  },
  {
    id: 'healthcare',
    name: 'Healthcare',
    description:
      'Clinics, practices and care providers: appointment reminders, patient intake, prescription refills and post-visit check-ins.',
  },
  {
    id: 'insurance',
    name: 'Insurance',
    description:
      'Carriers and agencies: quoting prospects, renewing policies, taking first notice of loss and reviewing coverage.',
  },
  {
    id: 'automotive',
    name: 'Automotive',
    description:
      'Dealerships and service centres: sales lead follow-up, service reminders, safety recalls and lease-end outreach.',
  },
  {
    id: 'financial_services',
    name: 'Financial Services',
    description:
      'Banks, lenders, credit unions and advisory firms: loan pre-qualification, fraud alerts, advisor meetings and account onboarding.',
  },
  {
    id: 'hospitality',
    name: 'Hospitality',
    description:
      'Hotels, resorts and restaurants: reservation confirmation, guest feedback, group and event sales and pre-arrival upgrades.',
  },
  {
    id: 'education',
    name: 'Education',
    description:
      'Schools, colleges and training providers: enrolment enquiries, application follow-up, attendance notices and tuition reminders.',
  },
  {
    id: 'ecommerce',
    name: 'E-commerce',
    description:
      'Online retailers and marketplaces: abandoned cart recovery, order confirmation, delivery follow-up and returns.',
  },
  {
    id: 'home_services',
    name: 'Home Services',
    description:
      'HVAC, plumbing, electrical, cleaning and other trades: booking estimates, renewing maintenance plans and following up on jobs.',
  },
  {
    id: 'legal',
    name: 'Legal',
    description:
      'Law firms and legal clinics: new client intake, consultation reminders and collecting documents for open matters.',
  },
  {
    id: 'recruiting',
    name: 'Recruiting',
    description:
      'Recruiters, staffing agencies and HR teams: candidate screening, interview scheduling, reference checks and shift filling.',
  },
  {
    id: 'telecom',
    name: 'Telecom',
    description:
      'Mobile, broadband and TV providers: plan upgrades, installation scheduling and outage follow-up.',
  },
];
