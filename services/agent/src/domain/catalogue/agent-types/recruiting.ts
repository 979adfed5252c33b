import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the recruiting industry. */
export const RECRUITING_TYPES: readonly AgentType[] = [
  {
    id: 'recruiting_candidate_screener',
    name: 'Candidate Screener',
    description: 'Runs first-round phone screens with applicants against the role’s must-have criteria.',
    category: 'industry',
    industry: 'recruiting',
    goal: 'Check the candidate’s interest, experience, availability and eligibility for the role.',
    collects: [
      {
        name: 'interested_in_role',
        type: 'boolean',
        description: 'Whether the candidate is interested in the role.',
        required: true,
      },
      {
        name: 'years_of_experience',
        type: 'number',
        description: 'Years of relevant experience.',
        required: true,
      },
      {
        name: 'work_authorised',
        type: 'boolean',
        description: 'Whether the candidate is authorised to work in the job’s country.',
        required: true,
      },
      { name: 'salary_expectation', type: 'number', description: 'Expected annual salary.', required: false },
      {
        name: 'notice_period_weeks',
        type: 'number',
        description: 'Weeks of notice before they can start.',
        required: false,
      },
      {
        name: 'work_arrangement',
        type: 'enum',
        description: 'Preferred arrangement.',
        required: false,
        options: ['onsite', 'hybrid', 'remote', 'flexible'],
      },
    ],
  },
  {
    id: 'recruiting_interview_scheduler',
    name: 'Interview Scheduler',
    description: 'Books interviews between shortlisted candidates and hiring managers.',
    category: 'industry',
    industry: 'recruiting',
    goal: 'Book an interview slot the candidate has confirmed and tell them how to join.',
    collects: [
      { name: 'interview_datetime', type: 'datetime', description: 'Booked interview time.', required: true },
      {
        name: 'interview_format',
        type: 'enum',
        description: 'How the interview takes place.',
        required: true,
        options: ['phone', 'video', 'onsite'],
      },
      { name: 'email', type: 'email', description: 'Email address for the calendar invite.', required: true },
      {
        name: 'accommodations_needed',
        type: 'string',
        description: 'Any accommodations the candidate needs.',
        required: false,
      },
    ],
  },
  {
    id: 'recruiting_reference_check',
    name: 'Reference Check',
    description: 'Calls a candidate’s referees with a structured set of questions.',
    category: 'industry',
    industry: 'recruiting',
    goal: 'Get a candid, structured account of the candidate’s work from someone who worked with them.',
    collects: [
      {
        name: 'relationship',
        type: 'enum',
        description: 'Referee’s relationship to the candidate.',
        required: true,
        options: ['manager', 'peer', 'direct_report', 'client', 'other'],
      },
      {
        name: 'years_worked_together',
        type: 'number',
        description: 'How long they worked together.',
        required: false,
      },
      { name: 'strengths', type: 'string', description: 'Candidate’s main strengths.', required: true },
      {
        name: 'areas_for_improvement',
        type: 'string',
        description: 'Where the candidate could grow.',
        required: false,
      },
      {
        name: 'would_rehire',
        type: 'boolean',
        description: 'Whether the referee would work with them again.',
        required: true,
      },
    ],
  },
  {
    id: 'recruiting_shift_filler',
    name: 'Shift Filler',
    description: 'Calls available workers from a staffing pool to fill open shifts at short notice.',
    category: 'industry',
    industry: 'recruiting',
    goal: 'Fill an open shift with a confirmed worker as quickly as possible.',
    collects: [
      {
        name: 'shift_accepted',
        type: 'boolean',
        description: 'Whether the worker accepted the shift.',
        required: true,
      },
      { name: 'decline_reason', type: 'string', description: 'Why the worker declined.', required: false },
      {
        name: 'has_transport',
        type: 'boolean',
        description: 'Whether the worker can get to the site.',
        required: false,
      },
      {
        name: 'other_availability',
        type: 'string',
        description: 'Other days or times the worker is available.',
        required: false,
      },
    ],
  },
];
