// JSON shapes more than one response shares: the Customer and User objects of tickets and
// comments, and the survey of both CSAT operations.
#pragma once

#include "common/json_writer.h"
#include "db/survey_repo.h"
#include "db/ticket_repo.h"

namespace supportcrm {

// {id, email, first_name, last_name, full_name}, plus phone_number and storefront_id when
// with_contact (the ticket fetch shape).
void write_customer(JsonWriter& w, const PersonRow& customer, bool with_contact);

// {id, email, first_name, last_name, full_name}, or null.
void write_user(JsonWriter& w, const std::optional<PersonRow>& user);

// A survey in the list shape: id, mark, comment, graphNodes, nodeIds, messageId, createdAt,
// shopDomain, conversationId (a string), customer {id, email, name, phone}.
void write_survey(JsonWriter& w, const SurveyRow& survey);

}  // namespace supportcrm
