// JSON shapes more than one response shares: the Customer and User objects of tickets and
// comments, and the survey of both CSAT operations.
#pragma once

#include <string>
#include <string_view>

#include "common/json_writer.h"
#include "db/comment_repo.h"
#include "db/customer_repo.h"
#include "db/survey_repo.h"
#include "db/ticket_repo.h"

namespace supportcrm {

// {id, email, first_name, last_name, full_name}, plus phone_number and storefront_id when
// with_contact (the ticket fetch shape).
void write_customer(JsonWriter& w, const PersonRow& customer, bool with_contact);

// A customer in the GET /api/v1/customers/{id} shape (api-v1.md §2), also each item of
// GET /api/v1/customers.
void write_fetched_customer(JsonWriter& w, const CustomerRow& c, std::string_view shop_domain);
// The same as JSON text, for an answer and an event that both carry it (PATCH, merge).
std::string fetched_customer_json(const CustomerRow& c, std::string_view shop_domain);

// {id, email, first_name, last_name, full_name}, or null.
void write_user(JsonWriter& w, const std::optional<PersonRow>& user);

// The ticket POST /api/v1/tickets answers with: the stored values of t under id, of shop_domain.
void write_created_ticket(JsonWriter& w, std::uint64_t id, const NewTicket& t,
                          std::string_view shop_domain);

// The full ticket shape (extensions.md §E8): the create shape, then HumanTicket ({id,
// HumanTicketStatus, openedAt, closedAt} or null) and updatedAt.
void write_full_ticket(JsonWriter& w, const FullTicket& t, std::string_view shop_domain);
// The same as JSON text, for an answer and an event that both carry it (PATCH).
std::string full_ticket_json(const FullTicket& t, std::string_view shop_domain);

// A comment in the GET /api/v1/tickets/{id}/comments shape, with its ticket's customer.
void write_comment(JsonWriter& w, const CommentRow& c, const PersonRow& customer);

// A survey in the list shape: id, mark, comment, graphNodes, nodeIds, messageId, createdAt,
// shopDomain, conversationId (a string), customer {id, email, name, phone}.
void write_survey(JsonWriter& w, const SurveyRow& survey);

}  // namespace supportcrm
