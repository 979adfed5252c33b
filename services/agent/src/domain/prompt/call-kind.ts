import type { AgentType } from '@voice/shared/contracts';

/**
 * What sort of conversation an agent type has. Steps and objections differ more by the shape of
 * the call (selling, booking, collecting a debt) than by industry, so the playbooks key on this.
 */
export type CallKind =
  | 'sales'
  | 'scheduling'
  | 'intake'
  | 'payment'
  | 'retention'
  | 'feedback'
  | 'support'
  | 'verification'
  | 'notice'
  | 'general';

// Listed by hand rather than guessed from names: "Document Collection" is not a debt call and
// "Sales Lead Follow-up" is not a feedback call. A type missing here gets the neutral playbook.
const KIND_BY_TYPE: Readonly<Record<string, CallKind>> = {
  sales: 'sales',
  cold_calling: 'sales',
  real_estate_lead_qualifier: 'sales',
  real_estate_listing_prospector: 'sales',
  insurance_quote_qualifier: 'sales',
  insurance_coverage_review: 'sales',
  automotive_sales_lead_follow_up: 'sales',
  automotive_lease_end: 'sales',
  financial_services_advisor_booking: 'sales',
  hospitality_group_booking: 'sales',
  hospitality_pre_arrival_upsell: 'sales',
  education_enrolment_advisor: 'sales',
  ecommerce_abandoned_cart: 'sales',
  telecom_plan_upgrade: 'sales',

  appointment_booking: 'scheduling',
  real_estate_showing_scheduler: 'scheduling',
  healthcare_appointment_reminder: 'scheduling',
  healthcare_prescription_refill: 'scheduling',
  automotive_service_reminder: 'scheduling',
  hospitality_reservation_confirmation: 'scheduling',
  ecommerce_order_confirmation: 'scheduling',
  home_services_estimate_booking: 'scheduling',
  legal_consultation_reminder: 'scheduling',
  recruiting_interview_scheduler: 'scheduling',
  recruiting_shift_filler: 'scheduling',
  telecom_installation_scheduler: 'scheduling',

  healthcare_patient_intake: 'intake',
  insurance_claims_intake: 'intake',
  financial_services_loan_pre_qualifier: 'intake',
  legal_client_intake: 'intake',
  legal_document_collection: 'intake',
  education_application_follow_up: 'intake',
  recruiting_candidate_screener: 'intake',
  recruiting_reference_check: 'intake',

  collection: 'payment',
  education_tuition_reminder: 'payment',

  retention: 'retention',
  insurance_policy_renewal: 'retention',
  home_services_maintenance_plan: 'retention',

  real_estate_open_house_follow_up: 'feedback',
  healthcare_post_visit_follow_up: 'feedback',
  hospitality_guest_feedback: 'feedback',
  ecommerce_delivery_follow_up: 'feedback',
  home_services_job_follow_up: 'feedback',

  support: 'support',
  telecom_outage_follow_up: 'support',
  ecommerce_returns_assistant: 'support',
  financial_services_account_onboarding: 'support',

  compliance: 'verification',
  financial_services_fraud_alert: 'verification',

  automotive_recall_notice: 'notice',
  education_attendance_notifier: 'notice',

  custom: 'general',
};

export function callKind(agentType: AgentType): CallKind {
  return Object.hasOwn(KIND_BY_TYPE, agentType.id) ? (KIND_BY_TYPE[agentType.id] ?? 'general') : 'general';
}
