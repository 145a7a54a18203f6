// POST /api/v1/csat — contract §6: how survey responses get in.
#include "api/api_error.h"
#include "api/bodies.h"
#include "api/fields.h"
#include "api/handler.h"
#include "api/views.h"
#include "common/json_writer.h"
#include "db/survey_repo.h"
#include "db/webhook_repo.h"

namespace supportcrm {

NewSurvey read_new_survey(FieldReader& f, const Json::Value& body, std::string_view raw_body,
                          timeutil::Millis now) {
    NewSurvey s;
    s.conversation_id = f.id("conversationId").value_or(0);
    f.require("conversationId");
    f.require("mark");
    s.mark = static_cast<int>(f.integer("mark", 1, 5, "an integer between 1 and 5").value_or(0));
    s.comment = f.text("comment");
    s.message_id = f.integer("messageId", INT64_MIN, INT64_MAX);
    if (f.present("graphNodes")) {
        if (body["graphNodes"].isObject()) {
            s.graph_nodes_json = raw_json(body["graphNodes"], raw_body);
        } else {
            f.fail("graphNodes must be an object");
        }
    }
    if (f.present("nodeIds")) {
        if (body["nodeIds"].isArray()) {
            s.node_ids_json = raw_json(body["nodeIds"], raw_body);
        } else {
            f.fail("nodeIds must be an array");
        }
    }
    s.created_at = f.datetime("createdAt").value_or(now);
    return s;
}

Response create_survey(HandlerContext& ctx) {
    auto body = read_json_object(ctx);
    if (body.error) {
        return std::move(*body.error);
    }
    FieldReader fields(body.value);
    NewSurvey survey = read_new_survey(fields, body.value, ctx.request.body(), timeutil::now_ms());
    if (!fields.ok()) {
        return errors::validation(fields.error());
    }
    const Shop& shop = ctx.caller.shop();
    // record_survey's transaction joins this one, so the event commits with the survey.
    Transaction tx(ctx.db);
    std::optional<RecordedSurvey> recorded = record_survey(ctx.db, shop.id, survey);
    if (!recorded) {
        return errors::ticket_not_found();
    }
    if (recorded->customer_erased) {
        return errors::customer_erased();
    }
    std::string survey_json;
    JsonWriter s(survey_json);
    write_survey(s, row_of_new_survey(*recorded, survey, shop.domain));
    return created(ctx, tx, {webhook_event::survey_created, timeutil::now_ms()}, "survey",
                   survey_json);
}

}  // namespace supportcrm
