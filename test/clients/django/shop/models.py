from django.db import models

from idgen_django import Idgen128Field, IdgenField


class Order(models.Model):
    id = IdgenField(primary_key=True)
    public_id = Idgen128Field(unique=True)
    item = models.TextField()


class Line(models.Model):
    id = IdgenField(primary_key=True)
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="lines")
    product = models.TextField()
