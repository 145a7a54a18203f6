// The CGI head the worker writes before every body (fcgi/response.cpp).
#include "fcgi/response.h"

#include <gtest/gtest.h>

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
