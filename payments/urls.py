"""Provider callback URLs. The token is the tenant's secret for that purpose
(payments.routes), so each tenant's URLs are unguessable and a leak of one opens
nothing else.

No "mpesa", "safaricom", "query" or the like in the path: Daraja refuses C2B URLs
containing them (protocols.md §2.5).
"""

from django.urls import URLPattern, URLResolver, path

from payments import views

app_name = "payments"

urlpatterns: list[URLPattern | URLResolver] = [
    path("cb/<str:token>/stk/", views.stk_callback, name="stk_callback"),
    path("cb/<str:token>/c2b/validate/", views.c2b_validation, name="c2b_validation"),
    path("cb/<str:token>/c2b/confirm/", views.c2b_confirmation, name="c2b_confirmation"),
    path("cb/<str:token>/status/result/", views.txn_status_result, name="txn_status_result"),
    path("cb/<str:token>/status/timeout/", views.txn_status_timeout, name="txn_status_timeout"),
    path("cb/<str:token>/refund/result/", views.refund_result, name="refund_result"),
    path("cb/<str:token>/refund/timeout/", views.refund_timeout, name="refund_timeout"),
    path("cb/<str:token>/card/ipn/", views.pesapal_ipn, name="pesapal_ipn"),
    path("cb/<str:token>/card/return/", views.pesapal_return, name="pesapal_return"),
]
