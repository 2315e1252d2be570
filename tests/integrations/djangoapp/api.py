"""DRF views of the test app, as a project would write them: plain ModelSerializers."""

from __future__ import annotations

from typing import Any

from rest_framework import routers, serializers, viewsets

from tests.integrations.djangoapp.models import Customer, Label, Order


class CustomerSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Customer
        fields = ("id", "name")


class OrderSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Order
        fields = ("id", "customer", "parent_id", "note")


class KeyedOrderSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    """Opts in to keys chosen by the client (issue 25 §3: read-only unless asked)."""

    class Meta:
        model = Order
        fields = ("id", "customer", "parent_id", "note")
        extra_kwargs = {"id": {"read_only": False}}  # noqa: RUF012 - DRF's Meta protocol


class LabelSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Label
        fields = ("id", "order", "parent", "name")


class LookupSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """A declared PrimaryKeyRelatedField to a SnowId-keyed model."""

    customer = serializers.PrimaryKeyRelatedField(queryset=Customer.objects.all())


class CustomerViewSet(viewsets.ModelViewSet):  # type: ignore[type-arg]
    queryset = Customer.objects.all()
    serializer_class = CustomerSerializer


class OrderViewSet(viewsets.ModelViewSet):  # type: ignore[type-arg]
    queryset = Order.objects.all()
    serializer_class = OrderSerializer


class KeyedOrderViewSet(viewsets.ModelViewSet):  # type: ignore[type-arg]
    queryset = Order.objects.all()
    serializer_class = KeyedOrderSerializer


class LabelViewSet(viewsets.ModelViewSet):  # type: ignore[type-arg]
    queryset = Label.objects.all()
    serializer_class = LabelSerializer


def routes() -> list[Any]:
    router = routers.DefaultRouter()
    router.register("customers", CustomerViewSet)
    router.register("orders", OrderViewSet)
    router.register("keyed-orders", KeyedOrderViewSet, basename="keyed-order")
    router.register("labels", LabelViewSet)
    return list(router.urls)
