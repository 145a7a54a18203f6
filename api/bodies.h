// The bodies of the create operations, read and validated: the part of each handler that needs
// no database. Each handler runs its reader on the object read_json_object() gave it and answers
// 400 validation_error with f.error() when !f.ok(); tests/fuzz drives the same functions
// directly. Defined in the handler's own file (customers_create.cpp, ...).
#pragma once

#include <json/value.h>

#include <string_view>

#include "api/fields.h"
#include "common/time_util.h"
#include "db/comment_repo.h"
#include "db/customer_repo.h"
#include "db/survey_repo.h"
#include "db/ticket_repo.h"

namespace supportcrm {

// POST /api/v1/customers; includes "email or phone_number is required".
NewCustomer read_new_customer(FieldReader& f);

// POST /api/v1/tickets; now is the default of date and lastMessageTime.
NewTicket read_new_ticket(FieldReader& f, const Json::Value& body, timeutil::Millis now);

// POST /api/v1/tickets/{id}/comments; raw_body is the text body was parsed from (attachments
// are kept as given, sliced from it).
NewComment read_new_comment(FieldReader& f, const Json::Value& body, std::string_view raw_body,
                            timeutil::Millis now);

// POST /api/v1/csat; raw_body as for comments (graphNodes, nodeIds).
NewSurvey read_new_survey(FieldReader& f, const Json::Value& body, std::string_view raw_body,
                          timeutil::Millis now);

}  // namespace supportcrm
