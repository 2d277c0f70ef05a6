// Who hears of a human request outside the Inbox, and the audit of where each notice went.
export {
  ROUTING_SETTING,
  RoutingInput,
  readRouting,
  saveRouting,
  recipientsFor,
  recordNotified,
  type Routing,
  type Recipient,
  type RequestForRouting,
} from "./routing";
