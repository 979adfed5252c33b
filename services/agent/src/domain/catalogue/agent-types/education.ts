import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the education industry. */
export const EDUCATION_TYPES: readonly AgentType[] = [
  {
    id: 'education_enrolment_advisor',
    name: 'Enrolment Advisor',
    description:
      'Calls prospective students who enquired about a programme and invites them to apply or visit.',
    category: 'industry',
    industry: 'education',
    goal: 'Understand the prospective student’s goals and move them to an application, an info session or a campus visit.',
    collects: [
      {
        name: 'programme_of_interest',
        type: 'string',
        description: 'Course or programme the student is interested in.',
        required: true,
      },
      {
        name: 'start_term',
        type: 'enum',
        description: 'When the student wants to start.',
        required: true,
        options: ['spring', 'summer', 'autumn', 'winter', 'undecided'],
      },
      {
        name: 'highest_education',
        type: 'enum',
        description: 'Highest qualification completed.',
        required: false,
        options: ['secondary', 'associate', 'bachelor', 'master', 'doctorate'],
      },
      {
        name: 'study_mode',
        type: 'enum',
        description: 'How the student wants to study.',
        required: false,
        options: ['on_campus', 'online', 'hybrid'],
      },
      {
        name: 'financial_aid_interest',
        type: 'boolean',
        description: 'Whether they want information on financial aid.',
        required: false,
      },
      {
        name: 'visit_datetime',
        type: 'datetime',
        description: 'Booked campus visit or info session.',
        required: false,
      },
      {
        name: 'email',
        type: 'email',
        description: 'Email address for programme information.',
        required: false,
      },
    ],
  },
  {
    id: 'education_application_follow_up',
    name: 'Application Follow-up',
    description: 'Follows up with applicants who started but did not finish their application.',
    category: 'industry',
    industry: 'education',
    goal: 'Help the applicant finish their application by finding and removing what is blocking them.',
    collects: [
      {
        name: 'still_interested',
        type: 'boolean',
        description: 'Whether the applicant still intends to apply.',
        required: true,
      },
      {
        name: 'blocker',
        type: 'enum',
        description: 'What is holding the application up.',
        required: false,
        options: [
          'personal_statement',
          'transcripts',
          'references',
          'application_fee',
          'financial_aid',
          'none',
        ],
      },
      {
        name: 'expected_completion_date',
        type: 'date',
        description: 'When the applicant expects to submit.',
        required: false,
      },
      {
        name: 'advisor_callback_requested',
        type: 'boolean',
        description: 'Whether they want an admissions advisor to call.',
        required: false,
      },
    ],
  },
  {
    id: 'education_attendance_notifier',
    name: 'Attendance Notifier',
    description: 'Notifies parents or guardians when a student is absent and records the reason.',
    category: 'industry',
    industry: 'education',
    goal: 'Make sure a parent or guardian knows about the absence and record its reason.',
    collects: [
      {
        name: 'guardian_aware',
        type: 'boolean',
        description: 'Whether the guardian already knew about the absence.',
        required: true,
      },
      {
        name: 'absence_reason',
        type: 'enum',
        description: 'Reason for the absence.',
        required: true,
        options: ['illness', 'medical_appointment', 'family_emergency', 'travel', 'unknown', 'other'],
      },
      {
        name: 'expected_return_date',
        type: 'date',
        description: 'When the student is expected back.',
        required: false,
      },
      {
        name: 'staff_callback_requested',
        type: 'boolean',
        description: 'Whether the guardian wants school staff to call.',
        required: false,
      },
    ],
  },
  {
    id: 'education_tuition_reminder',
    name: 'Tuition Reminder',
    description:
      'Reminds students or families of upcoming or overdue tuition payments and agrees how they will pay.',
    category: 'industry',
    industry: 'education',
    goal: 'Get a clear plan for paying the tuition balance by a specific date.',
    collects: [
      {
        name: 'payment_plan',
        type: 'enum',
        description: 'How the payer intends to pay.',
        required: true,
        options: ['pay_now', 'pay_by_date', 'instalment_plan', 'awaiting_financial_aid', 'dispute'],
      },
      {
        name: 'promised_payment_date',
        type: 'date',
        description: 'Date by which payment will be made.',
        required: false,
      },
      {
        name: 'financial_aid_question',
        type: 'string',
        description: 'Question to pass to the financial aid office.',
        required: false,
      },
    ],
  },
];
