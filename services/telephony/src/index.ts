// The telephony service: SIP signalling (src/sip) and RTP media (src/media) for real calls.
export {};
