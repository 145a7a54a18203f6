// The CGI head the worker writes before every body (api/response_writer.cpp).
#include <gtest/gtest.h>

#include "api/response_writer.h"

using namespace supportcrm;

TEST(ResponseHead, EveryAnswerForbidsContentSniffing) {
    for (int status : {200, 201, 400, 404, 405, 413, 500, 503}) {
        Response r;
        r.status = status;
        r.body = R"({"success":false})";
        EXPECT_NE(render_head(r, "rid").find("\r\nX-Content-Type-Options: nosniff\r\n"),
                  std::string::npos)
            << status;
    }
}
